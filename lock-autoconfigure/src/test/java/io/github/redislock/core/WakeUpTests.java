package io.github.redislock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.RedisServerCommands;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiters are woken by the release, not by polling: with a 30 second lease the fallback
 * retry would take up to 30 seconds, so a quick hand-off proves the release message.
 */
@ExtendWith(RedisExtension.class)
class WakeUpTests {

	/** Generous: real hand-off latency is measured by the benchmark module. */
	private static final Duration HANDOFF_BOUND = Duration.ofSeconds(2);

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final String name = "wake-" + UUID.randomUUID();

	private final ExecutorService first = Executors.newSingleThreadExecutor();

	private final ExecutorService second = Executors.newSingleThreadExecutor();

	WakeUpTests(RedisServer redis) {
		this.templates = new LockTemplates(redis);
		this.raw = redis.template();
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
			await().atMost(Duration.ofSeconds(10)).until(() -> this.raw.opsForHash().hasKey(lockKey(), "waiters"));
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

	@Test
	void oneReleaseWakesOneOfTheWaitersOfAnInstanceNotTheCrowd() throws Exception {
		DefaultRedisLockTemplate holderInstance = this.templates.create();
		DefaultRedisLockTemplate waiterInstance = this.templates.create();
		RedisLock holder = holderInstance.getLock(this.name);
		this.first.submit(holder::lock).get();
		int crowd = 10;
		ExecutorService waiters = Executors.newFixedThreadPool(crowd);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int i = 0; i < crowd; i++) {
				results.add(waiters.submit(() -> {
					RedisLock lock = waiterInstance.getLock(this.name);
					boolean acquired = lock.tryLock(Duration.ofSeconds(60), null);
					if (acquired) {
						lock.unlock();
					}
					return acquired;
				}));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> waiterInstance.signals().waiterCount() == crowd);
			// Let each waiter finish its attempt after registering, then count from here.
			await().atMost(Duration.ofSeconds(10)).until(() -> scriptCallsSettled());
			long before = scriptCalls();
			this.first.submit(holder::unlock).get();
			for (Future<Boolean> result : results) {
				assertThat(result.get(60, TimeUnit.SECONDS)).isTrue();
			}
			long calls = scriptCalls() - before;
			// Each waiter: one acquire and one release once woken, plus the holder's
			// release.
			// Waking the whole crowd at every release would cost about crowd * crowd
			// calls.
			assertThat(calls).isLessThanOrEqualTo(3L * crowd);
		}
		finally {
			waiters.shutdownNow();
		}
	}

	private long lastCalls = -1;

	private boolean scriptCallsSettled() {
		long calls = scriptCalls();
		boolean settled = calls == this.lastCalls;
		this.lastCalls = calls;
		return settled;
	}

	private long scriptCalls() {
		Properties stats = this.raw
			.execute((RedisCallback<Properties>) (connection) -> ((RedisServerCommands) connection.serverCommands())
				.info("commandstats"));
		long calls = 0;
		for (String command : List.of("cmdstat_evalsha", "cmdstat_eval")) {
			String line = stats.getProperty(command);
			if (line != null) {
				calls += Long.parseLong(line.replaceAll("^calls=(\\d+),.*$", "$1"));
			}
		}
		return calls;
	}

	private String lockKey() {
		return "redislock:{" + this.name + "}";
	}

}
