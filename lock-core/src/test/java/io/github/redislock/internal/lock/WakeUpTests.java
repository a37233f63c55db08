package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.core.RedisLock;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiters are woken by the release, not by polling: with a 30 second lease the fallback
 * retry would take up to 30 seconds, so a quick hand-off proves the release message.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class WakeUpTests {

	/** Generous: real hand-off latency is measured by the benchmark module. */
	private static final Duration HANDOFF_BOUND = Duration.ofSeconds(2);

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final String name;

	private final ExecutorService first = Executors.newSingleThreadExecutor();

	private final ExecutorService second = Executors.newSingleThreadExecutor();

	WakeUpTests(RedisMode mode, RedisTargets targets) {
		RedisTarget redis = targets.get(mode);
		this.templates = new LockTemplates(redis);
		this.raw = redis.template();
		this.name = redis.lockName("wake-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.first.shutdownNow();
		this.second.shutdownNow();
		this.templates.close();
	}

	@Test
	void waiterOfAnotherInstanceGetsTheLockSoonAfterEachOfFiftyReleases() throws Exception {
		assertHandOffs(this.templates.create(), this.templates.create());
	}

	@Test
	void waiterOfTheSameInstanceGetsTheLockSoonAfterEachOfFiftyReleases() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		assertHandOffs(template, template);
	}

	private void assertHandOffs(DefaultRedisLockTemplate a, DefaultRedisLockTemplate b) throws Exception {
		RedisLock lockA = a.getLock(this.name);
		RedisLock lockB = b.getLock(this.name);
		this.first.submit(lockA::lock).get();
		for (int i = 0; i < 50; i++) {
			boolean aHolds = (i % 2 == 0);
			RedisLock holder = aHolds ? lockA : lockB;
			RedisLock waiter = aHolds ? lockB : lockA;
			ExecutorService holderThread = aHolds ? this.first : this.second;
			ExecutorService waiterThread = aHolds ? this.second : this.first;
			AtomicLong acquiredAt = new AtomicLong();
			Future<Boolean> waiting = waiterThread.submit(() -> {
				boolean acquired = waiter.tryLock(Duration.ofSeconds(20), null);
				acquiredAt.set(System.nanoTime());
				return acquired;
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> LockRecords.hasWaiters(this.raw, lockKey()));
			long releasedAt = holderThread.submit(() -> {
				holder.unlock();
				return System.nanoTime();
			}).get();
			assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(Duration.ofNanos(acquiredAt.get() - releasedAt)).as("hand-off %d", i).isLessThan(HANDOFF_BOUND);
		}
		this.first.submit(lockA::unlock).get();
		assertThat(lockA.isLocked()).isFalse();
	}

	private String lockKey() {
		return "redislock:{" + this.name + "}";
	}

}
