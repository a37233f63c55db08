package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockHandle;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.CommandCounter;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What each operation costs in Redis commands, counted by the server itself.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
class RoundTripTests {

	private final LockTemplates templates;

	private final CommandCounter commands;

	RoundTripTests(RedisServer redis) {
		this.templates = new LockTemplates(redis);
		this.commands = new CommandCounter(redis);
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	/**
	 * Client requests: INFO commandstats also counts the commands a script runs inside
	 * Redis, so count script calls, and the plain commands the engine could send.
	 */
	private long requests() {
		return this.commands.calls("evalsha", "eval", "exists", "pttl", "subscribe");
	}

	private long scriptCalls() {
		return this.commands.calls("evalsha", "eval");
	}

	@Test
	void uncontendedAcquireAndReleaseAreOneRequestEachAndReentryIsFree() {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock warmUp = template.getLock("warm-up-" + UUID.randomUUID());
		warmUp.lock();
		warmUp.extend(Duration.ofSeconds(10));
		warmUp.unlock();
		RedisLock lock = template.getLock("round-trips-" + UUID.randomUUID());

		long before = requests();
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(requests() - before).as("acquire").isEqualTo(1);

		before = requests();
		lock.lock();
		lock.unlock();
		assertThat(requests() - before).as("re-entry and its release").isZero();

		before = requests();
		assertThat(lock.extend(Duration.ofSeconds(10))).isTrue();
		assertThat(requests() - before).as("extend").isEqualTo(1);

		before = requests();
		lock.unlock();
		assertThat(requests() - before).as("release").isEqualTo(1);
	}

	@Test
	void extendingAHandleOrAPermitIsOneRequest() {
		DefaultRedisLockTemplate template = this.templates.create();
		LockHandle warmUp = template.tryAcquire("warm-up-" + UUID.randomUUID(), Duration.ZERO, null, null)
			.orElseThrow();
		warmUp.extend(Duration.ofSeconds(10));
		warmUp.release();
		SemaphorePermit warmUpPermit = template.getSemaphore("warm-up-" + UUID.randomUUID(), 1)
			.tryAcquire(Duration.ZERO, null)
			.orElseThrow();
		warmUpPermit.extend(Duration.ofSeconds(10));
		warmUpPermit.close();

		LockHandle handle = template
			.tryAcquire("handle-" + UUID.randomUUID(), Duration.ZERO, null, Duration.ofSeconds(1))
			.orElseThrow();
		long before = requests();
		assertThat(handle.extend(Duration.ofSeconds(10))).isTrue();
		assertThat(requests() - before).as("extend a handle with a hold-at-least").isEqualTo(1);
		handle.release();

		SemaphorePermit permit = template.getSemaphore("permit-" + UUID.randomUUID(), 2)
			.tryAcquire(Duration.ZERO, null)
			.orElseThrow();
		// (Its script reads the set's expiry with PTTL, which INFO counts too.)
		before = scriptCalls();
		assertThat(permit.extend(Duration.ofSeconds(10))).isTrue();
		assertThat(scriptCalls() - before).as("extend a permit").isEqualTo(1);
		permit.close();
	}

	@Test
	void watchdogRenewsManyLocksWithOneCommandPerTick() throws Exception {
		Duration lease = Duration.ofMillis(900);
		DefaultRedisLockTemplate template = this.templates.create(lease);
		List<RedisLock> locks = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			RedisLock lock = template.getLock("watched-" + i + "-" + UUID.randomUUID());
			lock.lock();
			locks.add(lock);
		}
		long before = scriptCalls();
		long start = System.nanoTime();
		Thread.sleep(lease.multipliedBy(2).toMillis());
		long ticks = Duration.ofNanos(System.nanoTime() - start).toMillis() / (lease.toMillis() / 3) + 1;
		long renewals = scriptCalls() - before;
		assertThat(renewals).as("renewal commands for 200 locks over %d ticks", ticks)
			.isPositive()
			.isLessThanOrEqualTo(ticks);
		for (RedisLock lock : locks) {
			assertThat(lock.isHeldByCurrentThread()).isTrue();
			lock.unlock();
		}
	}

	@Test
	void oneReleaseWakesOneOfTheWaitersOfAnInstanceNotTheCrowd() throws Exception {
		DefaultRedisLockTemplate holderInstance = this.templates.create();
		DefaultRedisLockTemplate waiterInstance = this.templates.create();
		String name = "crowd-" + UUID.randomUUID();
		RedisLock holder = holderInstance.getLock(name);
		ExecutorService holderThread = Executors.newSingleThreadExecutor();
		holderThread.submit(holder::lock).get();
		int crowd = 10;
		ExecutorService waiters = Executors.newFixedThreadPool(crowd);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int i = 0; i < crowd; i++) {
				results.add(waiters.submit(() -> {
					RedisLock lock = waiterInstance.getLock(name);
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
			holderThread.submit(holder::unlock).get();
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
			holderThread.shutdownNow();
		}
	}

	private long lastCalls = -1;

	private boolean scriptCallsSettled() {
		long calls = scriptCalls();
		boolean settled = calls == this.lastCalls;
		this.lastCalls = calls;
		return settled;
	}

}
