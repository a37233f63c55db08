package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.core.LockLostEvent;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
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
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Semaphores on a real Redis (single server and Cluster): at most N holders, per-permit
 * leases, owner-checked releases.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class SemaphoreTests {

	private final LockTemplates templates;

	private final RedisTarget redis;

	private final String name;

	SemaphoreTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.templates = new LockTemplates(this.redis);
		this.name = this.redis.lockName("semaphore-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	private StringRedisTemplate raw() {
		return this.redis.template();
	}

	private String permitsKey() {
		return "redislock:{" + this.name + "}:permits";
	}

	@Test
	void sixtyFourThreadsOverTwoInstancesNeverHoldMoreThanFourPermits() throws Exception {
		RedisSemaphore first = this.templates.create().getSemaphore(this.name, 4);
		RedisSemaphore second = this.templates.create().getSemaphore(this.name, 4);
		SectionHistory history = new SectionHistory();
		AtomicInteger runs = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(64);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < 64; t++) {
				RedisSemaphore semaphore = (t % 2 == 0) ? first : second;
				done.add(threads.submit(() -> {
					for (int i = 0; i < 5; i++) {
						try (SemaphorePermit permit = semaphore.tryAcquire(Duration.ofMinutes(2), null).orElseThrow()) {
							// From the acquire's return to the release's call.
							SectionHistory.Open section = history.enter(false);
							Thread.sleep(2);
							runs.incrementAndGet();
							section.close();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : done) {
				future.get(3, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(runs).hasValue(320);
		assertThat(history.size()).isEqualTo(320);
		assertThat(history.maxOverlap()).as("most holders at once").isLessThanOrEqualTo(4).isGreaterThan(1);
		assertThat(raw().hasKey(permitsKey())).as("nothing left").isFalse();
	}

	@Test
	void permitsAreCountedAndEachReleaseFreesOnlyItsOwn() {
		RedisSemaphore semaphore = this.templates.create().getSemaphore(this.name, 2);
		assertThat(semaphore.availablePermits()).isEqualTo(2);
		SemaphorePermit a = semaphore.tryAcquire(Duration.ZERO, null).orElseThrow();
		SemaphorePermit b = semaphore.tryAcquire(Duration.ZERO, null).orElseThrow();
		assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
		assertThat(semaphore.availablePermits()).isZero();
		assertThat(semaphore.tryAcquire(Duration.ofMillis(100), null)).isEmpty();
		a.close();
		a.close();
		assertThat(a.isHeld()).isFalse();
		assertThat(b.isHeld()).isTrue();
		assertThat(semaphore.availablePermits()).as("a double close freed nothing more").isEqualTo(1);
		b.close();
		assertThat(semaphore.availablePermits()).isEqualTo(2);
	}

	@Test
	void aReleaseByANonOwnerChangesNothing() {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisSemaphore semaphore = template.getSemaphore(this.name, 1);
		try (SemaphorePermit permit = semaphore.tryAcquire(Duration.ZERO, null).orElseThrow()) {
			LockKeys.SemaphoreKeys keys = new LockKeys("redislock").semaphoreKeys(this.name);
			long released = template.commands()
				.call(template.commands().releasePermitCall(keys, "someone-else:1:1", "x"));
			assertThat(released).isZero();
			assertThat(permit.isHeld()).isTrue();
			assertThat(semaphore.availablePermits()).isZero();
		}
	}

	@Test
	void aPermitWhoseFixedLeaseRanOutComesBackAndItsHolderLearnsTheLoss() {
		DefaultRedisLockTemplate template = this.templates.create();
		List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
		template.setLockLostListener(lost::add);
		RedisSemaphore semaphore = template.getSemaphore(this.name, 1);
		SemaphorePermit stale = semaphore.tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
		RedisSemaphore other = this.templates.create().getSemaphore(this.name, 1);
		Optional<SemaphorePermit> taken = other.tryAcquire(Duration.ofSeconds(10), null);
		assertThat(taken).as("free once the lease ran out").isPresent();
		await().atMost(Duration.ofSeconds(5)).until(() -> !stale.isHeld());
		taken.get().close();
		await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
		assertThat(lost.get(0).getLockName()).isEqualTo(this.name);
	}

	@Test
	void aPermitIsExtendedFromAnyThreadAndAnExtensionAfterItsLossAnswersFalse() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofMillis(600));
		List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
		template.setLockLostListener(lost::add);
		RedisSemaphore semaphore = template.getSemaphore(this.name, 2);
		SemaphorePermit permit = semaphore.tryAcquire(Duration.ZERO, null).orElseThrow();
		SemaphorePermit neighbour = semaphore.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		ExecutorService otherThread = Executors.newSingleThreadExecutor();
		try {
			assertThat(otherThread.submit(() -> permit.extend(Duration.ofMillis(1500))).get()).isTrue();
			// Not renewed any more (the watchdog ticks every 200 ms): its lease runs out.
			await().pollDelay(Duration.ofMillis(800)).atMost(Duration.ofSeconds(5)).until(() -> !permit.isHeld());
			await().atMost(Duration.ofSeconds(5)).until(() -> semaphore.availablePermits() == 1);
			assertThat(neighbour.isHeld()).as("another permit is untouched").isTrue();
			assertThat(permit.extend(Duration.ofSeconds(30))).as("gone").isFalse();
			assertThat(semaphore.availablePermits()).as("nothing taken back").isEqualTo(1);
			await().atMost(Duration.ofSeconds(5)).until(() -> lost.size() == 1);
			assertThat(neighbour.extend(Duration.ofSeconds(5))).isTrue();
			neighbour.close();
			assertThat(neighbour.extend(Duration.ofSeconds(5))).as("after its release").isFalse();
			assertThat(lost).as("a released permit is no loss").hasSize(1);
			assertThat(semaphore.availablePermits()).isEqualTo(2);
		}
		finally {
			otherThread.shutdownNow();
		}
	}

	@Test
	void aWatchdogRenewedPermitOutlivesItsLease() {
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofMillis(600));
		RedisSemaphore semaphore = template.getSemaphore(this.name, 1);
		try (SemaphorePermit permit = semaphore.tryAcquire(Duration.ZERO, null).orElseThrow()) {
			await().pollDelay(Duration.ofMillis(1800)).atMost(Duration.ofSeconds(5)).until(() -> true);
			assertThat(permit.isHeld()).isTrue();
			assertThat(this.templates.create().getSemaphore(this.name, 1).tryAcquire(Duration.ZERO, null)).isEmpty();
		}
	}

	@Test
	void aCallerCountingMorePermitsDecidesForItsOwnAcquisition() {
		RedisSemaphore two = this.templates.create().getSemaphore(this.name, 2);
		RedisSemaphore three = this.templates.create().getSemaphore(this.name, 3);
		SemaphorePermit a = two.tryAcquire(Duration.ZERO, null).orElseThrow();
		SemaphorePermit b = two.tryAcquire(Duration.ZERO, null).orElseThrow();
		assertThat(two.tryAcquire(Duration.ZERO, null)).isEmpty();
		SemaphorePermit c = three.tryAcquire(Duration.ZERO, null).orElseThrow();
		assertThat(three.tryAcquire(Duration.ZERO, null)).isEmpty();
		a.close();
		b.close();
		c.close();
	}

	@Test
	void aWaiterIsWokenByARelease() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisSemaphore semaphore = template.getSemaphore(this.name, 1);
		SemaphorePermit held = semaphore.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		ExecutorService waiter = Executors.newSingleThreadExecutor();
		try {
			Future<Optional<SemaphorePermit>> waiting = waiter.submit(
					() -> this.templates.create().getSemaphore(this.name, 1).tryAcquire(Duration.ofSeconds(20), null));
			await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> true);
			long released = System.nanoTime();
			held.close();
			Optional<SemaphorePermit> permit = waiting.get(20, TimeUnit.SECONDS);
			assertThat(permit).isPresent();
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
				.as("woken by the release, long before the 30 s lease")
				.isLessThan(5000);
			permit.get().close();
		}
		finally {
			waiter.shutdownNow();
		}
	}

	@Test
	void badPermitCountsAndNamesAreRefused() {
		DefaultRedisLockTemplate template = this.templates.create();
		assertThatIllegalArgumentException().isThrownBy(() -> template.getSemaphore(this.name, 0))
			.withMessageContaining("at least 1 permit");
		String hostile = this.name + "}\\{x}\n\u0000";
		try (SemaphorePermit permit = template.getSemaphore(hostile, 1).tryAcquire(Duration.ZERO, null).orElseThrow()) {
			assertThat(permit.isHeld()).isTrue();
		}
	}

}
