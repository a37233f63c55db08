package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockHandle;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Review of commit c34e18f through a real template: the coarse timeouts as a configured
 * command timeout reaches them, and the blocking close() of permits and handles that now
 * finishes on the calling thread ({@code releaseBlocking}).
 */
@ExtendWith(RedisExtension.class)
class ReleaseBlockingReviewTests {

	private static final Duration LONG_LEASE = Duration.ofSeconds(30);

	private final LocalRedisServer redis;

	private final StringRedisTemplate raw;

	private final String name = "review-" + UUID.randomUUID();

	private final LockTemplates made;

	ReleaseBlockingReviewTests(RedisServers servers) {
		this.redis = servers.start();
		this.raw = this.redis.template();
		this.made = new LockTemplates(this.redis);
	}

	@AfterEach
	void close() throws Exception {
		this.made.close();
	}

	/**
	 * A client configured with the longest command timeout Lettuce takes
	 * (Duration.ofNanos(Long.MAX_VALUE), "never time out"): Lettuce's own blocking calls
	 * work, but every asynchronous script call of the engine whose answer takes longer
	 * than the time to the next 100 ms tick fails with "Command timed out": the deadline
	 * nanoTime + timeout wrapped negative. Replies delayed 300 ms: a permit's close()
	 * fails, and an asynchronous acquisition fails, though Redis answered.
	 */
	@Test
	void defectWithTheLongestCommandTimeoutASlowAnswerTimesOutAtTheNextTick() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			DefaultRedisLockTemplate instance = template(
					factory(proxy.host(), proxy.port(), Duration.ofNanos(Long.MAX_VALUE)));
			RedisSemaphore semaphore = instance.getSemaphore(this.name, 2);
			SemaphorePermit permit = semaphore.tryAcquire(Duration.ZERO, LONG_LEASE).orElseThrow();
			proxy.delayReplies(Duration.ofMillis(300));
			long start = System.nanoTime();
			Throwable closeFailure = catchThrowable(permit::close);
			long tookMillis = (System.nanoTime() - start) / 1_000_000;
			Throwable acquireFailure = catchThrowable(
					() -> semaphore.tryAcquireAsync(Duration.ofSeconds(5), LONG_LEASE).get(20, TimeUnit.SECONDS));
			// Tear down through the proxy while it still runs: the client's blocking
			// calls
			// have no timeout to speak of.
			proxy.delayReplies(Duration.ZERO);
			close();
			assertThat(closeFailure)
				.as("close() with replies 300 ms late and a 292-year timeout (after %d ms)", tookMillis)
				.isNull();
			assertThat(acquireFailure).as("tryAcquireAsync with replies 300 ms late and a 292-year timeout").isNull();
		}
	}

	/**
	 * join() ignores interrupts and restores the flag: the close() of an interrupted
	 * thread still releases, and the thread stays interrupted.
	 */
	@Test
	void survivesCloseOnAnInterruptedThread() {
		DefaultRedisLockTemplate instance = template(this.redis.connectionFactory());
		RedisSemaphore semaphore = instance.getSemaphore(this.name, 1);
		SemaphorePermit permit = semaphore.tryAcquire(Duration.ZERO, LONG_LEASE).orElseThrow();
		Thread.currentThread().interrupt();
		try {
			permit.close();
			assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag after close()").isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(this.raw.opsForZSet().zCard(permitsKey())).isZero();
		assertThat(semaphore.tryAcquire(Duration.ZERO, LONG_LEASE)).isPresent();
	}

	/**
	 * A permit whose fixed lease ran out, closed with on-lock-lost=throw: the caller gets
	 * LockLostException itself (not wrapped), as releaseAsync's future fails with it;
	 * close() twice: the second does nothing.
	 */
	@Test
	void survivesLockLostOnCloseOfAnExpiredPermitAndASecondClose() throws Exception {
		DefaultRedisLockTemplate instance = template(this.redis.connectionFactory());
		RedisSemaphore semaphore = instance.getSemaphore(this.name, 1);
		SemaphorePermit permit = semaphore.tryAcquire(Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
		Thread.sleep(600);
		assertThatThrownBy(permit::close).isExactlyInstanceOf(LockLostException.class);
		permit.close();
		SemaphorePermit other = semaphore.tryAcquire(Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
		Thread.sleep(600);
		Throwable asyncFailure = catchThrowable(() -> other.releaseAsync().join());
		assertThat(asyncFailure).hasCauseExactlyInstanceOf(LockLostException.class);
	}

	/**
	 * close() racing releaseAsync() of the same handle: exactly one release is sent, and
	 * neither call fails.
	 */
	@Test
	void survivesCloseRacingReleaseAsync() throws Exception {
		DefaultRedisLockTemplate instance = template(this.redis.connectionFactory());
		RedisSemaphore semaphore = instance.getSemaphore(this.name, 1);
		for (int i = 0; i < 200; i++) {
			SemaphorePermit permit = semaphore.tryAcquire(Duration.ofSeconds(5), LONG_LEASE).orElseThrow();
			CompletableFuture<Void> closed = CompletableFuture.runAsync(permit::close);
			CompletableFuture<?> released = permit.releaseAsync();
			closed.get(10, TimeUnit.SECONDS);
			released.get(10, TimeUnit.SECONDS);
		}
		assertThat(this.raw.opsForZSet().zCard(permitsKey())).isZero();
	}

	/**
	 * A watchdog-renewed handle (null lease) released by a blocking release(): the
	 * renewal stops, nothing is renewed back into Redis afterwards.
	 */
	@Test
	void survivesBlockingReleaseOfAWatchdogRenewedHandle() throws Exception {
		DefaultRedisLockTemplate instance = template(this.redis.connectionFactory());
		Optional<LockHandle> handle = instance.getLock(this.name).tryAcquireAsync(Duration.ZERO, null).get();
		handle.orElseThrow().release();
		assertThat(handle.get().isHeld()).isFalse();
		await().during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(15))
			.until(() -> !LockRecords.isHeld(this.raw, "redislock:{" + this.name + "}"));
	}

	private String permitsKey() {
		return "redislock:{" + this.name + "}:permits";
	}

	private DefaultRedisLockTemplate template(LettuceConnectionFactory factory) {
		return this.made.create(factory, LONG_LEASE);
	}

	private LettuceConnectionFactory factory(String host, int port, Duration commandTimeout) {
		return this.made.factory(host, port, commandTimeout);
	}

}
