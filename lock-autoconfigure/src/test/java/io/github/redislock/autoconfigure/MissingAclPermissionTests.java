package io.github.redislock.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.ReactiveRedisLockTemplate;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The starter as an ACL user short of one permission of the README's rule, on a server
 * whose {@code default} user is off. Redis checks each command a Lua script calls as the
 * script runs, and refuses one with an {@code ERR} (not {@code NOPERM}) whose text
 * differs by server: each lock path fails at once with an error that names the lock and
 * the README's rule, and leaves no lock or permit taken.
 */
@ExtendWith(RedisExtension.class)
class MissingAclPermissionTests {

	private static final String ADMIN_PASSWORD = "admin-" + UUID.randomUUID();

	private final LocalRedisServer redis;

	private final RedisClient client = RedisClient.create();

	private final StatefulRedisConnection<String, String> admin;

	private final List<String> rule;

	MissingAclPermissionTests(RedisServers servers) throws IOException {
		this.redis = servers.start();
		this.rule = AclUserApplicationTests.readmeRule();
		try (StatefulRedisConnection<String, String> asDefault = this.client.connect(this.redis.redisUri())) {
			AclUserApplicationTests.acl(asDefault.sync(), "SETUSER", "admin", "reset", "on", ">" + ADMIN_PASSWORD, "~*",
					"&*", "+@all");
			AclUserApplicationTests.acl(asDefault.sync(),
					this.rule.subList(1, this.rule.size()).toArray(String[]::new));
			AclUserApplicationTests.acl(asDefault.sync(), "SETUSER", "default", "off");
		}
		this.admin = this.client.connect(RedisURI.builder(this.redis.redisUri())
			.withAuthentication("admin", ADMIN_PASSWORD.toCharArray())
			.build());
	}

	@AfterEach
	void close() {
		this.admin.close();
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	private void revoke(String command) {
		AclUserApplicationTests.acl(this.admin.sync(), "SETUSER", this.rule.get(2), "-" + command.substring(1));
	}

	private ApplicationContextRunner runner() {
		String password = this.rule.stream().filter((word) -> word.startsWith(">")).findFirst().orElseThrow();
		return LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.username=" + this.rule.get(2),
					"spring.data.redis.password=" + password.substring(1));
	}

	/**
	 * Taken away while the application runs: {@code PEXPIRE} comes after the first write
	 * of the read-write and semaphore acquire scripts, so those acquisitions fail after
	 * writing; an exclusive lock's acquire writes once, with {@code SET}, also taken
	 * away. Each fails at once, says why, and what it wrote is undone.
	 */
	@Test
	void permissionTakenAwayWhileRunningFailsEveryLockPathAtOnceAndLeavesNothingTaken() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			revoke("+pexpire");
			// An exclusive lock's acquire writes with SET ... PX, its only write.
			revoke("+set");
			RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
			String id = UUID.randomUUID().toString();
			refusedAtOnce("blocking-" + id,
					() -> locks.execute("blocking-" + id, Duration.ofSeconds(20), null, () -> "ran"));
			refusedAtOnce("async-" + id, () -> join(locks.executeAsync("async-" + id, Duration.ofSeconds(20), null,
					() -> CompletableFuture.completedFuture("ran"))));
			refusedAtOnce("try-async-" + id,
					() -> join(locks.getLock("try-async-" + id).tryAcquireAsync(Duration.ofSeconds(20), null)));
			ReactiveRedisLockTemplate reactive = context.getBean(ReactiveRedisLockTemplate.class);
			refusedAtOnce("reactive-" + id,
					() -> reactive
						.execute("reactive-" + id, Duration.ofSeconds(20), null,
								(token) -> reactor.core.publisher.Mono.just("ran"))
						.block(Duration.ofSeconds(30)));
			refusedAtOnce("rw-" + id,
					() -> locks.getReadWriteLock("rw-" + id).writeLock().tryLock(Duration.ofSeconds(20), null));
			refusedAtOnce("read-" + id,
					() -> locks.getReadWriteLock("read-" + id).readLock().tryLock(Duration.ofSeconds(20), null));
			RedisSemaphore semaphore = locks.getSemaphore("sem-" + id, 1);
			refusedAtOnce("sem-" + id, () -> semaphore.tryAcquire(Duration.ofSeconds(20), null));
			assertThat(this.admin.sync().keys("redislock:{*")).as("locks, write sides, readers or permits left")
				.noneMatch((key) -> this.admin.sync().type(key).equals("hash")
						|| this.admin.sync().type(key).equals("zset") && this.admin.sync().zcard(key) > 0);
			AclUserApplicationTests.acl(this.admin.sync(), "SETUSER", this.rule.get(2), "+pexpire", "+set");
			for (String name : List.of("blocking-", "async-", "try-async-", "reactive-")) {
				RedisLock lock = locks.getLock(name + id);
				assertThat(lock.tryLock(Duration.ZERO, null)).as(name + " free").isTrue();
				lock.unlock();
			}
			assertThat(locks.getReadWriteLock("rw-" + id).writeLock().tryLock(Duration.ZERO, null)).isTrue();
			Optional<SemaphorePermit> permit = semaphore.tryAcquire(Duration.ZERO, null);
			assertThat(permit).as("the one permit").isPresent();
			permit.get().release();
		});
	}

	private void refusedAtOnce(String lockName, ThrowingCallable call) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(call::call)
			.withMessageContaining("'" + lockName + "'")
			.withMessageContaining("Redis refused the call")
			.withMessageContaining("Least-privilege ACL user");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as(lockName + ": failed at once, not after its wait")
			.isLessThan(Duration.ofSeconds(5));
	}

	private static <T> T join(CompletableFuture<T> future) throws Exception {
		try {
			return future.get(30, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
	}

	interface ThrowingCallable {

		Object call() throws Exception;

	}

}
