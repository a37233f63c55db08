package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.TcpProxy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A blocking {@link RedisSemaphore#tryAcquire} that stops waiting while its attempt is on
 * its way (interrupted, or out of time with the attempt unanswered) leaves nothing behind
 * once it has returned: the permit the attempt may still be granted is given back before
 * the call returns, as the lock kinds do. A proxy holds the attempt's answer (or the
 * attempt itself) back, so that the attempt is reliably on its way.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
class SemaphoreGivingUpTests {

	private final RedisServer redis;

	private final StringRedisTemplate raw;

	private final LockTemplates templates;

	private final String name = "semaphore-giving-up-" + UUID.randomUUID();

	private final TcpProxy proxy;

	private @Nullable LettuceConnectionFactory factory;

	private @Nullable DefaultRedisLockTemplate viaProxy;

	SemaphoreGivingUpTests(RedisServer redis) {
		this.redis = redis;
		this.raw = redis.template();
		this.templates = new LockTemplates(redis);
		this.proxy = TcpProxy.to(redis);
	}

	@AfterEach
	void close() throws Exception {
		if (this.viaProxy != null) {
			this.viaProxy.destroy();
		}
		if (this.factory != null) {
			this.factory.destroy();
		}
		this.proxy.close();
		this.templates.close();
	}

	@Test
	void anInterruptWhileTheAttemptIsOnItsWayReturnsOnlyOnceTheGrantedPermitIsBack() throws Exception {
		RedisSemaphore semaphore = semaphoreViaProxy(Duration.ofSeconds(60));
		RedisSemaphore other = this.templates.create().getSemaphore(this.name, 1);
		// Redis grants the attempt at once; its answer is held back.
		this.proxy.delayReplies(Duration.ofMillis(300));
		CompletableFuture<Outcome> outcome = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			Optional<SemaphorePermit> permit = semaphore.tryAcquire(Duration.ofSeconds(30), null);
			boolean interrupted = Thread.currentThread().isInterrupted();
			permit.ifPresent(SemaphorePermit::close);
			outcome.complete(new Outcome(permit.isPresent(), interrupted));
		}, "semaphore-waiter");
		waiter.setDaemon(true);
		waiter.start();
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.raw.opsForZSet().zCard(permitsKey()) == 1);
		waiter.interrupt();
		Outcome result = outcome.get(30, TimeUnit.SECONDS);
		Optional<SemaphorePermit> next = other.tryAcquire(Duration.ZERO, null);
		next.ifPresent(SemaphorePermit::close);
		assertThat(result.acquired()).as("acquired although interrupted").isFalse();
		assertThat(result.interrupted()).as("interrupt status kept").isTrue();
		assertThat(next).as("the permit granted to the interrupted call is back when it returns").isPresent();
	}

	@Test
	void aWaitThatEndsWithTheAttemptUnansweredReturnsOnlyOnceTheAttemptIsUndone() throws Exception {
		RedisSemaphore semaphore = semaphoreViaProxy(Duration.ofMillis(1000));
		RedisSemaphore other = this.templates.create().getSemaphore(this.name, 1);
		// The attempt reaches Redis after its command timeout; the undo sent then reaches
		// it 300 ms later, and is answered within its own timeout.
		this.proxy.delayRequests(Duration.ofMillis(1300));
		CompletableFuture<@Nullable RuntimeException> outcome = CompletableFuture.supplyAsync(() -> {
			try {
				semaphore.tryAcquire(Duration.ofMillis(100), null).ifPresent(SemaphorePermit::close);
				return null;
			}
			catch (RuntimeException ex) {
				return ex;
			}
		});
		Thread.sleep(300);
		this.proxy.delayRequests(Duration.ofMillis(300));
		RuntimeException failure = outcome.get(30, TimeUnit.SECONDS);
		// Until well after the undo reached Redis, nobody may find the permit taken.
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
		while (System.nanoTime() < until) {
			assertThat(other.availablePermits()).as("permits free after the call returned").isEqualTo(1);
			Thread.sleep(10);
		}
		assertThat(failure).as("Redis did not answer within the wait time")
			.isInstanceOf(LockAcquisitionException.class);
	}

	@Test
	void anotherInterruptWhileTheGivenUpAttemptSettlesEndsTheWaitAndThePermitStillGoesBack() throws Exception {
		// A slow Redis: the attempt is granted at once, its answer comes 3 s later, well
		// within the command timeout. The first interrupt gives the acquisition up; the
		// caller need not wait for that answer if interrupted again (as an exclusive
		// lock's undo is cut short by a second interrupt), and the permit still goes
		// back once the answer comes.
		RedisSemaphore semaphore = semaphoreViaProxy(Duration.ofSeconds(60));
		RedisSemaphore other = this.templates.create().getSemaphore(this.name, 1);
		this.proxy.delayReplies(Duration.ofSeconds(3));
		CompletableFuture<Long> returnedAt = new CompletableFuture<>();
		CompletableFuture<Boolean> acquired = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			Optional<SemaphorePermit> permit = semaphore.tryAcquire(Duration.ofSeconds(30), null);
			returnedAt.complete(System.nanoTime());
			acquired.complete(permit.isPresent());
			permit.ifPresent(SemaphorePermit::close);
		}, "semaphore-waiter");
		waiter.setDaemon(true);
		waiter.start();
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.raw.opsForZSet().zCard(permitsKey()) == 1);
		waiter.interrupt();
		Thread.sleep(200);
		long interruptedAgainAt = System.nanoTime();
		waiter.interrupt();
		long returned = returnedAt.get(30, TimeUnit.SECONDS);
		assertThat(acquired.get()).as("acquired although interrupted").isFalse();
		assertThat(Duration.ofNanos(returned - interruptedAgainAt)).as("returned after the second interrupt in")
			.isLessThan(Duration.ofSeconds(1));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(other.availablePermits()).as("the permit went back").isEqualTo(1));
	}

	@Test
	void aThreadInterruptedBeforeItAsksTakesNoPermitEvenWhenOneIsFree() {
		// As the lock kinds do: the answer to a free semaphore's attempt may come before
		// the caller looks, and must not hand a permit to a thread told to stop.
		RedisSemaphore semaphore = this.templates.create().getSemaphore(this.name, 1);
		for (int i = 0; i < 100; i++) {
			Thread.currentThread().interrupt();
			Optional<SemaphorePermit> permit = semaphore.tryAcquire(Duration.ofSeconds(5), null);
			boolean interrupted = Thread.interrupted();
			permit.ifPresent(SemaphorePermit::close);
			assertThat(permit).as("a permit for a thread interrupted before it asked, try " + i).isEmpty();
			assertThat(interrupted).as("interrupt status kept").isTrue();
		}
		assertThat(semaphore.availablePermits()).isEqualTo(1);
	}

	/**
	 * Return the semaphore of one permit of an instance that talks to Redis through the
	 * proxy, with the scripts loaded and the connection open.
	 */
	private RedisSemaphore semaphoreViaProxy(Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.proxy.host(), this.proxy.port()),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		if (this.redis.password() != null) {
			factory.getStandaloneConfiguration().setPassword(this.redis.password());
		}
		factory.afterPropertiesSet();
		factory.start();
		this.factory = factory;
		this.viaProxy = new DefaultRedisLockTemplate(factory);
		RedisSemaphore semaphore = this.viaProxy.getSemaphore(this.name, 1);
		semaphore.tryAcquire(Duration.ZERO, null).orElseThrow().close();
		return semaphore;
	}

	private String permitsKey() {
		return "redislock:{" + this.name + "}:permits";
	}

	private record Outcome(boolean acquired, boolean interrupted) {
	}

}
