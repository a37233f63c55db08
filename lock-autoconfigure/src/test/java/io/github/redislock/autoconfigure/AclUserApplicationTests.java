package io.github.redislock.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.actuate.endpoint.RedisLockEndpoint;
import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.internal.AclRefusals;
import io.github.redislock.queue.DeadLetters;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The starter as a least-privilege ACL user: the exact {@code ACL SETUSER} rule of the
 * README ("Least-privilege ACL user"), read from it, on a server whose {@code default}
 * user is off. The whole lock and queue cycle runs and Redis refuses nothing
 * ({@code ACL LOG} stays empty); a user short of a permission is told which, at once.
 */
@ExtendWith(RedisExtension.class)
class AclUserApplicationTests {

	private static final String ADMIN_PASSWORD = "admin-" + UUID.randomUUID();

	static final Set<String> RAN = ConcurrentHashMap.newKeySet();

	private final LocalRedisServer redis;

	private final RedisClient client = RedisClient.create();

	private final StatefulRedisConnection<String, String> admin;

	private final List<String> rule;

	private final ExecutorService waiter = Executors.newSingleThreadExecutor();

	AclUserApplicationTests(RedisServers servers) throws IOException {
		this.redis = servers.start();
		this.rule = readmeRule();
		try (StatefulRedisConnection<String, String> asDefault = this.client.connect(this.redis.redisUri())) {
			acl(asDefault.sync(), "SETUSER", "admin", "reset", "on", ">" + ADMIN_PASSWORD, "~*", "&*", "+@all");
			acl(asDefault.sync(), this.rule.subList(1, this.rule.size()).toArray(String[]::new));
			acl(asDefault.sync(), "SETUSER", "default", "off");
		}
		this.admin = this.client.connect(RedisURI.builder(this.redis.redisUri())
			.withAuthentication("admin", ADMIN_PASSWORD.toCharArray())
			.build());
		this.admin.sync().aclLogReset();
	}

	@AfterEach
	void close() {
		this.waiter.shutdownNow();
		this.admin.close();
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	/**
	 * The README's rule, as words: {@code ACL SETUSER <user> ...}.
	 */
	static List<String> readmeRule() throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		String line = readme.lines()
			.filter((candidate) -> candidate.startsWith("ACL SETUSER "))
			.findFirst()
			.orElseThrow(() -> new AssertionError("README.md gives no 'ACL SETUSER' rule"));
		return List.of(line.trim().split(" +"));
	}

	/**
	 * The README's additions that name {@code grant} (e.g. Jedis's {@code +psubscribe}),
	 * as words: {@code ACL SETUSER <user> ...}.
	 */
	static List<String> readmeAdditions(String grant) throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		String line = readme.lines()
			.filter((candidate) -> candidate.startsWith("ACL SETUSER ")
					&& List.of(candidate.trim().split(" +")).contains(grant))
			.findFirst()
			.orElseThrow(() -> new AssertionError("README.md gives no 'ACL SETUSER' line granting " + grant));
		return List.of(line.trim().split(" +"));
	}

	/**
	 * The README's additions for a Redis Cluster, as words:
	 * {@code ACL SETUSER <user> ...}.
	 */
	static List<String> readmeClusterAdditions() throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		String line = readme.lines()
			.filter((candidate) -> candidate.startsWith("ACL SETUSER ") && candidate.contains("+cluster|nodes"))
			.findFirst()
			.orElseThrow(() -> new AssertionError("README.md gives no 'ACL SETUSER' additions for a Cluster"));
		return List.of(line.trim().split(" +"));
	}

	private String user() {
		return this.rule.get(2);
	}

	private String password() {
		return this.rule.stream()
			.filter((word) -> word.startsWith(">"))
			.findFirst()
			.map((word) -> word.substring(1))
			.orElseThrow();
	}

	static void acl(RedisCommands<String, String> commands, String... words) {
		CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
		Arrays.stream(words).forEach(args::add);
		commands.dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args);
	}

	private ApplicationContextRunner runnerAs(String user, String password) {
		return LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class,
					RedisLockAdminAutoConfiguration.class, RedisLockEndpointAutoConfiguration.class,
					RedisLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.username=" + user,
					"spring.data.redis.password=" + password, "management.endpoints.web.exposure.include=redislock",
					"redislock.queue.poll-interval=200ms", "redislock.queue.max-attempts=1",
					"redislock.queue.backoff.initial=10ms")
			.withBean(Tasks.class);
	}

	/**
	 * Spring Boot's own Redis health indicator (actuator's, not the starter's) sends
	 * {@code INFO}: DOWN as the README's user, UP with the README's addition for it.
	 */
	@Test
	void springBootsRedisHealthIsUpWithTheReadmesHealthAddition() throws IOException {
		ApplicationContextRunner runner = runnerAs(user(), password()).withConfiguration(AutoConfigurations
			.of(org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration.class));
		runner.run((context) -> assertThat(
				context.getBean("redisHealthContributor", HealthIndicator.class).health().getStatus())
			.as("Spring Boot's Redis health without the addition")
			.isEqualTo(Status.DOWN));
		List<String> addition = readmeAdditions("+cluster|info");
		acl(this.admin.sync(), addition.subList(1, addition.size()).toArray(String[]::new));
		this.admin.sync().aclLogReset();
		runner.run((context) -> assertThat(
				context.getBean("redisHealthContributor", HealthIndicator.class).health().getStatus())
			.as("Spring Boot's Redis health with the README's addition")
			.isEqualTo(Status.UP));
		assertThat(this.admin.sync().aclLog()).as("commands, keys or channels Redis refused")
			.filteredOn((entry) -> !"client|setinfo".equals(entry.get("object")))
			.isEmpty();
	}

	@Test
	void wholeLockAndQueueCycleRunsAsTheReadmeUserAndRedisRefusesNothing() {
		assertThat(this.admin.sync().aclList()).anyMatch((user) -> user.startsWith("user default off"));
		runnerAs(user(), password()).run((context) -> {
			assertThat(context).hasNotFailed();
			try {
				wholeCycle(context);
			}
			catch (Throwable ex) {
				throw new AssertionError("ACL LOG: " + this.admin.sync().aclLog(), ex);
			}
		});
		// Lettuce's CLIENT SETINFO on connect (Redis 7.2+, Valkey) is refused and
		// ignored;
		// Redis 7.0 has no such subcommand to grant.
		assertThat(this.admin.sync().aclLog()).as("commands, keys or channels Redis refused")
			.filteredOn((entry) -> !"client|setinfo".equals(entry.get("object")))
			.isEmpty();
	}

	private void wholeCycle(org.springframework.context.ApplicationContext context) throws Exception {
		{
			RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
			String id = UUID.randomUUID().toString();
			exclusiveLockWithAWaiterWokenByTheRelease(locks, "acl-" + id);
			RedisLock write = locks.getReadWriteLock("acl-rw-" + id).writeLock();
			write.lock();
			write.unlock();
			RedisLock read = locks.getReadWriteLock("acl-rw-" + id).readLock();
			read.lock();
			read.unlock();
			RedisSemaphore semaphore = locks.getSemaphore("acl-sem-" + id, 2);
			Optional<SemaphorePermit> permit = semaphore.tryAcquire(Duration.ofSeconds(5), null);
			assertThat(permit).isPresent();
			assertThat(semaphore.availablePermits()).isEqualTo(1);
			permit.get().release();
			assertThat(semaphore.availablePermits()).isEqualTo(2);
			Tasks tasks = context.getBean(Tasks.class);
			tasks.record(id);
			tasks.fail(id);
			await().atMost(Duration.ofSeconds(30)).until(() -> RAN.contains(id));
			DeadLetters deadLetters = context.getBean(DeadLetters.class);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> deadLetters.list("acl-failing", 10).stream().map(DeadTask::id).toList().contains(id));
			assertThat(context.getBean("redislockHealthIndicator", HealthIndicator.class).health().getStatus())
				.isEqualTo(Status.UP);
			RedisLockEndpoint endpoint = context.getBean(RedisLockEndpoint.class);
			RedisLock held = locks.getLock("acl-held-" + id);
			held.lock();
			assertThat(endpoint.describe().locks()).anyMatch((lock) -> lock.name().equals("acl-held-" + id));
			assertThat(endpoint.describe().queues()).containsKey("acl-failing");
			held.unlock();
		}
	}

	@Test
	void readmeUserCannotTouchKeysOutsideThePrefix() {
		try (StatefulRedisConnection<String, String> asUser = this.client.connect(
				RedisURI.builder(this.redis.redisUri()).withAuthentication(user(), password().toCharArray()).build())) {
			this.admin.sync().set("other", "x");
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> asUser.sync().get("other"))
				.withMessageContaining("NOPERM");
			assertThatExceptionOfType(Exception.class)
				.isThrownBy(() -> asUser.sync()
					.eval("return redis.call('GET', KEYS[1])", io.lettuce.core.ScriptOutputType.VALUE, "other"))
				.matches(AclRefusals::isRefusal, "an ACL refusal");
		}
	}

	private void exclusiveLockWithAWaiterWokenByTheRelease(RedisLockTemplate locks, String name) throws Exception {
		RedisLock lock = locks.getLock(name);
		locks.execute(name + "-first", Duration.ofSeconds(5), null, () -> "ran");
		lock.lock();
		long first = lock.fencingToken();
		long[] acquiredAt = new long[1];
		long[] token = new long[1];
		Future<Boolean> waiting = this.waiter.submit(() -> {
			RedisLock same = locks.getLock(name);
			boolean acquired = same.tryLock(Duration.ofSeconds(25), null);
			acquiredAt[0] = System.nanoTime();
			if (acquired) {
				token[0] = same.fencingToken();
				same.unlock();
			}
			return acquired;
		});
		await().atMost(Duration.ofSeconds(10))
			.until(() -> waitedFor(this.admin.sync().get("redislock:{" + name + "}")));
		long releasedAt = System.nanoTime();
		lock.unlock();
		assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(acquiredAt[0] - releasedAt)).as("woken by the release message")
			.isLessThan(Duration.ofSeconds(2));
		assertThat(token[0]).as("fencing token").isGreaterThan(first);
	}

	static class Tasks {

		@QueuedTask(queue = "acl-tasks", id = "#id")
		public void record(String id) {
			RAN.add(id);
		}

		@QueuedTask(queue = "acl-failing", id = "#id")
		public void fail(String id) {
			throw new IllegalStateException("fails on purpose");
		}

	}

	/**
	 * Whether an exclusive lock's record ({@code token:until:flags:atleast:owner}) says
	 * someone waits for it.
	 */
	private static boolean waitedFor(String record) {
		return record != null && record.split(":", 5)[2].contains("w");
	}

}
