package io.github.redislock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * The behaviours Spring Integration's own {@code RedisLockRegistryTests} check, against
 * {@link RedisLockRegistryAdapter} on a real Redis server and on a Cluster: locking and
 * re-entry, locks across threads and registries (each registry on an application instance
 * of its own, or several over one), {@code tryLock} time-outs, interrupts, expiry with
 * {@code expireAfter} and without (the watchdog), {@code lockInterruptibly},
 * {@code renewLock} with and without a TTL, the renewal scheduler, the lock cache; and
 * what the adapter adds: a re-entry that asks Redis, the fencing token.
 */
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class RedisLockRegistryAdapterTests {

	/** A bound for anything that should be prompt; generous for a loaded machine. */
	private static final Duration PROMPTLY = Duration.ofSeconds(5);

	private final RedisTarget redis;

	private Instances instances;

	private String name;

	private final List<ExecutorService> threads = new ArrayList<>();

	RedisLockRegistryAdapterTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
	}

	@BeforeEach
	void open() {
		this.instances = new Instances(this.redis);
		this.name = this.redis.lockName("si-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.threads.forEach(ExecutorService::shutdownNow);
		this.instances.close();
	}

	private ExecutorService thread() {
		ExecutorService thread = Executors.newSingleThreadExecutor();
		this.threads.add(thread);
		return thread;
	}

	// Locking, re-entry, the cache

	@Test
	void lockAndUnlockRepeatedlyThenUnusedLocksExpireFromTheCache() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		for (int i = 0; i < 10; i++) {
			Lock lock = registry.obtain(this.name);
			if (i % 2 == 0) {
				lock.lock();
			}
			else {
				lock.lockInterruptibly();
			}
			try {
				assertThat(this.instances.exists(this.name)).isTrue();
				assertThat(registry.cachedLocks()).isOne();
			}
			finally {
				lock.unlock();
			}
			assertThat(this.instances.exists(this.name)).isFalse();
		}
		registry.expireUnusedOlderThan(-1000);
		assertThat(registry.cachedLocks()).isZero();
	}

	@Test
	void reentryIsCountedAndOnlyTheLastUnlockReleases() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		Lock outer = registry.obtain(this.name);
		outer.lock();
		Lock inner = registry.obtain(this.name);
		assertThat(inner).isSameAs(outer);
		inner.lockInterruptibly();
		assertThat(inner.tryLock()).isTrue();
		assertThat(inner.tryLock(1, TimeUnit.SECONDS)).isTrue();
		assertThat(registry.holdCount(this.name)).isEqualTo(4);
		for (int i = 0; i < 3; i++) {
			inner.unlock();
			assertThat(this.instances.exists(this.name)).isTrue();
		}
		outer.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
		assertThat(registry.holdCount(this.name)).isZero();
		registry.expireUnusedOlderThan(-1000);
		assertThat(registry.cachedLocks()).isZero();
	}

	@Test
	void twoKeysAreTwoLocks() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		String other = this.redis.lockName("si-other-" + UUID.randomUUID());
		Lock first = registry.obtain(this.name);
		Lock second = registry.obtain(other);
		assertThat(second).isNotSameAs(first).isNotEqualTo(first);
		first.lockInterruptibly();
		second.lockInterruptibly();
		assertThat(this.instances.exists(this.name)).isTrue();
		assertThat(this.instances.exists(other)).isTrue();
		second.unlock();
		first.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
		assertThat(this.instances.exists(other)).isFalse();
	}

	@Test
	void locksAreEqualPerRegistryAndKey() {
		RedisLockRegistryAdapter first = this.instances.registry();
		RedisLockRegistryAdapter second = this.instances.registry();
		assertThat(first.obtain(this.name)).isEqualTo(first.obtain(this.name))
			.hasSameHashCodeAs(first.obtain(this.name))
			.isNotEqualTo(second.obtain(this.name));
		first.expireUnusedOlderThan(-1000);
		assertThat(first.obtain(this.name)).isEqualTo(first.obtain(this.name));
	}

	@Test
	void concurrentExpiryAndObtainGiveEqualLocks() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		for (int i = 0; i < 20; i++) {
			String key = this.name + "-" + i;
			CountDownLatch start = new CountDownLatch(1);
			List<CompletableFuture<Lock>> locks = new ArrayList<>();
			for (int t = 0; t < 2; t++) {
				locks.add(CompletableFuture.supplyAsync(() -> {
					try {
						start.await();
						registry.expireUnusedOlderThan(10_000);
						Lock lock = registry.obtain(key);
						if (lock.tryLock(500, TimeUnit.MILLISECONDS)) {
							lock.unlock();
						}
						return lock;
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
				}, thread()));
			}
			start.countDown();
			assertThat(locks.get(0).get(10, TimeUnit.SECONDS)).isEqualTo(locks.get(1).get(10, TimeUnit.SECONDS));
		}
	}

	@Test
	void aLockObjectDroppedFromTheCacheNeverMakesASecondHold() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		registry.setCacheCapacity(2);
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<?> holder = thread().submit(() -> {
			DistributedLock lock = registry.obtain(this.name);
			lock.lock();
			try {
				held.countDown();
				release.await(10, TimeUnit.SECONDS);
			}
			finally {
				lock.unlock();
			}
			return null;
		});
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		Lock first = registry.obtain(this.name);
		registry.obtain(this.name + "-2");
		registry.obtain(this.name + "-3");
		DistributedLock again = registry.obtain(this.name);
		assertThat(again).isNotSameAs(first);
		assertThat(again.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
		release.countDown();
		holder.get(10, TimeUnit.SECONDS);
		assertThatNoException().isThrownBy(() -> {
			again.lock();
			again.unlock();
		});
	}

	@Test
	void keysAreStringsAndNamesValid() {
		RedisLockRegistryAdapter registry = this.instances.registry();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(42));
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(""));
		assertThat(registry.obtain(this.name).toString()).contains(this.name);
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry.obtain(this.name).newCondition());
	}

	// Threads and registries

	@Test
	void anotherThreadTimesOutAndCannotUnlock() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		Lock lock = registry.obtain(this.name);
		lock.lockInterruptibly();
		Future<Object> other = thread().submit(() -> {
			Lock same = registry.obtain(this.name);
			long start = System.nanoTime();
			boolean acquired = same.tryLock(300, TimeUnit.MILLISECONDS);
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			assertThat(acquired).isFalse();
			assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(250)).isLessThan(PROMPTLY);
			assertThatIllegalStateException().isThrownBy(same::unlock).withMessageContaining("You do not own lock at");
			return null;
		});
		other.get(10, TimeUnit.SECONDS);
		assertThat(this.instances.exists(this.name)).isTrue();
		lock.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
	}

	@Test
	void unlockByAThreadThatDoesNotHoldItIsRefusedAndLeavesTheHold() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		Lock lock = registry.obtain(this.name);
		lock.lockInterruptibly();
		Future<Throwable> other = thread().submit(() -> {
			try {
				lock.unlock();
				return null;
			}
			catch (IllegalStateException ex) {
				return ex;
			}
		});
		assertThat(other.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("You do not own lock at");
		assertThat(this.instances.exists(this.name)).isTrue();
		lock.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
	}

	@Test
	void aWaitingThreadOfTheSameRegistryGetsTheLockWhenItIsUnlocked() throws Exception {
		waiterGetsTheLockWhenUnlocked(this.instances.registry(), null);
	}

	@Test
	void aWaitingThreadOfAnotherRegistryGetsTheLockWhenItIsUnlocked() throws Exception {
		waiterGetsTheLockWhenUnlocked(this.instances.registry(), this.instances.registry());
	}

	@Test
	void registriesOverOneTemplateAreOwnersOfTheirOwnEvenOnOneThread() throws Exception {
		RedisLockTemplate template = this.instances.template();
		RedisLockRegistryAdapter first = this.instances.register(new RedisLockRegistryAdapter(template));
		RedisLockRegistryAdapter second = this.instances.register(new RedisLockRegistryAdapter(template));
		Lock mine = first.obtain(this.name);
		Lock theirs = second.obtain(this.name);
		mine.lock();
		assertThat(theirs.tryLock()).isFalse();
		assertThat(theirs.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
		mine.unlock();
		assertThat(theirs.tryLock()).isTrue();
		assertThat(mine.tryLock()).isFalse();
		theirs.unlock();
		waiterGetsTheLockWhenUnlocked(first, second);
	}

	private void waiterGetsTheLockWhenUnlocked(RedisLockRegistryAdapter registry,
			RedisLockRegistryAdapter otherRegistry) throws Exception {
		RedisLockRegistryAdapter waitersRegistry = (otherRegistry != null) ? otherRegistry : registry;
		Lock lock = registry.obtain(this.name);
		lock.lockInterruptibly();
		CountDownLatch waiting = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		AtomicReference<Boolean> heldWhileWaiting = new AtomicReference<>();
		Future<?> waiter = thread().submit(() -> {
			Lock same = waitersRegistry.obtain(this.name);
			waiting.countDown();
			same.lockInterruptibly();
			try {
				heldWhileWaiting.set(this.instances.exists(this.name));
				done.await(10, TimeUnit.SECONDS);
			}
			finally {
				same.unlock();
			}
			return null;
		});
		assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(200);
		assertThat(heldWhileWaiting.get()).isNull();
		lock.unlock();
		await().atMost(PROMPTLY).untilAsserted(() -> assertThat(heldWhileWaiting.get()).isTrue());
		done.countDown();
		waiter.get(10, TimeUnit.SECONDS);
		assertThat(this.instances.exists(this.name)).isFalse();
	}

	@Test
	void manyRegistriesTakeTurnsWithoutOverlap() throws Exception {
		List<RedisLockRegistryAdapter> registries = new ArrayList<>();
		RedisLockTemplate shared = this.instances.template();
		for (int i = 0; i < 10; i++) {
			registries.add(this.instances.register((i % 2 == 0) ? new RedisLockRegistryAdapter(shared)
					: new RedisLockRegistryAdapter(this.instances.template())));
		}
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger runs = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(registries.size());
		this.threads.add(pool);
		for (int round = 0; round < 3; round++) {
			List<Future<?>> turns = new ArrayList<>();
			for (RedisLockRegistryAdapter registry : registries) {
				turns.add(pool.submit(() -> {
					Lock lock = registry.obtain(this.name);
					lock.lock();
					try {
						if (inside.incrementAndGet() > 1) {
							overlaps.incrementAndGet();
						}
						Thread.sleep(2);
						inside.decrementAndGet();
						runs.incrementAndGet();
					}
					finally {
						lock.unlock();
					}
					return null;
				}));
			}
			for (Future<?> turn : turns) {
				turn.get(30, TimeUnit.SECONDS);
			}
		}
		assertThat(runs.get()).isEqualTo(30);
		assertThat(overlaps.get()).isZero();
	}

	@Test
	void oneUnlockLetsOneWaiterIn() throws Exception {
		Lock lock = this.instances.registry().obtain(this.name);
		Lock second = this.instances.registry().obtain(this.name);
		Lock third = this.instances.registry().obtain(this.name);
		lock.lock();
		CountDownLatch ready = new CountDownLatch(2);
		CountDownLatch answered = new CountDownLatch(2);
		AtomicInteger acquired = new AtomicInteger();
		for (Lock waiter : List.of(second, third)) {
			thread().submit(() -> {
				ready.countDown();
				if (waiter.tryLock(10, TimeUnit.SECONDS)) {
					acquired.incrementAndGet();
				}
				answered.countDown();
				return null;
			});
		}
		assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(200);
		lock.unlock();
		assertThat(answered.await(1, TimeUnit.SECONDS)).isFalse();
		assertThat(acquired.get()).isOne();
	}

	@Test
	void registryLocksAreTheTemplatesLocksOfTheSameName() {
		RedisLockTemplate template = this.instances.template();
		RedisLockRegistryAdapter registry = this.instances.register(new RedisLockRegistryAdapter(template));
		Lock lock = registry.obtain(this.name);
		lock.lock();
		assertThat(template.getLock(this.name).isLocked()).isTrue();
		assertThat(this.instances.template().getLock(this.name).tryLock()).isFalse();
		lock.unlock();
		assertThat(template.getLock(this.name).isLocked()).isFalse();
	}

	// Time-outs and interrupts

	@Test
	void tryLockWithATimeGetsALockReleasedMeanwhile() throws Exception {
		Lock lock = this.instances.registry().obtain(this.name);
		Lock other = this.instances.registry().obtain(this.name);
		lock.lock();
		Future<Boolean> waiter = thread().submit(() -> {
			boolean acquired = other.tryLock(10, TimeUnit.SECONDS);
			if (acquired) {
				other.unlock();
			}
			return acquired;
		});
		Thread.sleep(200);
		long start = System.nanoTime();
		lock.unlock();
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void anInterruptEndsAWaitAndLeavesNothingTaken() throws Exception {
		Lock lock = this.instances.registry().obtain(this.name);
		RedisLockRegistryAdapter waiters = this.instances.registry();
		lock.lock();
		for (boolean timed : new boolean[] { false, true }) {
			AtomicReference<Thread> waitingThread = new AtomicReference<>();
			Future<Throwable> waiter = thread().submit(() -> {
				waitingThread.set(Thread.currentThread());
				try {
					if (timed) {
						waiters.obtain(this.name).tryLock(30, TimeUnit.SECONDS);
					}
					else {
						waiters.obtain(this.name).lockInterruptibly();
					}
					return null;
				}
				catch (InterruptedException ex) {
					return ex;
				}
			});
			await().atMost(PROMPTLY).until(() -> waitingThread.get() != null);
			Thread.sleep(200);
			waitingThread.get().interrupt();
			assertThat(waiter.get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS)).isInstanceOf(InterruptedException.class);
		}
		lock.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
		Lock free = waiters.obtain(this.name);
		assertThat(free.tryLock()).isTrue();
		free.unlock();
	}

	@Test
	void anInterruptedThreadIsRefusedByTheInterruptibleWaysAndCanStillUseLock() throws Exception {
		Lock lock = this.instances.registry().obtain(this.name);
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(InterruptedException.class).isThrownBy(lock::lockInterruptibly);
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS));
		Thread.currentThread().interrupt();
		assertThat(lock.tryLock()).isFalse();
		assertThat(Thread.interrupted()).isTrue();
		Thread.currentThread().interrupt();
		lock.lock();
		// (Cleared while the test itself talks to Redis.)
		assertThat(Thread.interrupted()).as("interrupt status kept by lock()").isTrue();
		assertThat(this.instances.exists(this.name)).isTrue();
		Thread.currentThread().interrupt();
		lock.unlock();
		assertThat(Thread.interrupted()).as("interrupt status kept by unlock()").isTrue();
		assertThat(this.instances.exists(this.name)).isFalse();
	}

	@Test
	void lockIsNotInterruptedAndKeepsTheInterruptForLater() throws Exception {
		Lock lock = this.instances.registry().obtain(this.name);
		Lock other = this.instances.registry().obtain(this.name);
		lock.lock();
		AtomicReference<Thread> waitingThread = new AtomicReference<>();
		Future<Boolean> waiter = thread().submit(() -> {
			waitingThread.set(Thread.currentThread());
			other.lock();
			try {
				return Thread.currentThread().isInterrupted();
			}
			finally {
				other.unlock();
			}
		});
		await().atMost(PROMPTLY).until(() -> waitingThread.get() != null);
		Thread.sleep(200);
		waitingThread.get().interrupt();
		Thread.sleep(300);
		assertThat(waiter).isNotDone();
		lock.unlock();
		assertThat(waiter.get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		assertThat(this.instances.exists(this.name)).isFalse();
	}

	@Test
	void unlockWithTheInterruptStatusSetReleasesAndKeepsIt() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		Lock lock = registry.obtain(this.name);
		lock.lock();
		Thread.currentThread().interrupt();
		try {
			lock.unlock();
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(this.instances.exists(this.name)).isFalse();
		Lock other = this.instances.registry().obtain(this.name);
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	// Expiry, leases, renewal

	@Test
	void withExpireAfterAnExpiredHoldIsLostAndAnotherRegistryTakesTheLock() throws Exception {
		RedisLockRegistryAdapter first = this.instances.registry(Duration.ofMillis(200));
		RedisLockRegistryAdapter second = this.instances.registry(Duration.ofMillis(200));
		Lock mine = first.obtain(this.name);
		Lock theirs = second.obtain(this.name);
		assertThat(mine.tryLock()).isTrue();
		assertThat(theirs.tryLock()).isFalse();
		await().atMost(PROMPTLY).until(() -> !this.instances.exists(this.name));
		assertThat(theirs.tryLock()).isTrue();
		// The same thread asks again for its expired hold: not re-entered, and not taken.
		assertThat(mine.tryLock()).isFalse();
		theirs.unlock();
		// The expired hold's acquisition still needs its unlock, which reports the loss.
		assertThatExceptionOfType(LockLostException.class).isThrownBy(mine::unlock);
		assertThat(first.holdCount(this.name)).isZero();
	}

	@Test
	void unlockAfterTheLeaseRanOutReportsTheLoss() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry(Duration.ofMillis(100));
		Lock lock = registry.obtain(this.name);
		lock.lock();
		await().atMost(PROMPTLY).until(() -> !this.instances.exists(this.name));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageContaining("was lost before release");
		assertThatIllegalStateException().isThrownBy(lock::unlock);
	}

	@Test
	void aLateUnlockLeavesTheNextHoldersLockAlone() throws Exception {
		Lock expiring = this.instances.registry(Duration.ofMillis(100)).obtain(this.name);
		Lock next = this.instances.registry(Duration.ofSeconds(10)).obtain(this.name);
		expiring.lock();
		await().atMost(PROMPTLY).until(() -> !this.instances.exists(this.name));
		assertThat(next.tryLock()).isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(expiring::unlock);
		assertThat(this.instances.exists(this.name)).isTrue();
		assertThat(this.instances.template().getLock(this.name).tryLock()).isFalse();
		next.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
	}

	@Test
	void aTtlOfTheCallOutlivesTheRegistrysLease() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry(Duration.ofMillis(100));
		for (int i = 0; i < 2; i++) {
			DistributedLock lock = registry.obtain(this.name);
			if (i == 0) {
				lock.lock(Duration.ofMillis(1500));
			}
			else {
				assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(1500))).isTrue();
			}
			try {
				Thread.sleep(300);
				assertThat(this.instances.exists(this.name)).isTrue();
			}
			finally {
				assertThatNoException().isThrownBy(lock::unlock);
			}
		}
		registry.expireUnusedOlderThan(-1000);
		assertThat(registry.cachedLocks()).isZero();
	}

	@Test
	void withoutExpireAfterAHoldLastsAsLongAsItIsHeld() throws Exception {
		// A lease of 2 s renewed every third of it, held for 2.5 leases: a renewal late
		// by
		// over a second (a loaded CI machine was late by 400 ms with 600 ms) is needed to
		// lose it.
		RedisLockTemplate template = this.instances.template(Duration.ofSeconds(2));
		Lock lock = this.instances.register(new RedisLockRegistryAdapter(template)).obtain(this.name);
		Lock other = this.instances.registry().obtain(this.name);
		lock.lock();
		Thread.sleep(5000);
		assertThat(other.tryLock()).isFalse();
		assertThatNoException().isThrownBy(lock::unlock);
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	@Test
	void theRenewalSchedulerKeepsAFixedLeaseWhileHeld() throws Exception {
		// As above: 2.5 leases of 2 s, so that only a renewal over a second late loses
		// it.
		RedisLockRegistryAdapter registry = this.instances.registry(Duration.ofSeconds(2));
		SimpleAsyncTaskScheduler scheduler = new SimpleAsyncTaskScheduler();
		try {
			registry.setRenewalTaskScheduler(scheduler);
			Lock lock = registry.obtain(this.name);
			Lock other = this.instances.registry().obtain(this.name);
			assertThat(lock.tryLock()).isTrue();
			Thread.sleep(5000);
			assertThat(other.tryLock()).isFalse();
			assertThatNoException().isThrownBy(lock::unlock);
			assertThat(this.instances.exists(this.name)).isFalse();
		}
		finally {
			scheduler.close();
		}
	}

	@Test
	void renewLockExtendsTheCallingThreadsHold() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry(Duration.ofMillis(1000));
		Lock lock = registry.obtain(this.name);
		assertThat(lock.tryLock()).isTrue();
		Thread.sleep(500);
		registry.renewLock(this.name);
		Thread.sleep(700);
		assertThat(this.instances.exists(this.name)).isTrue();
		long ttl = LockRecords.leaseLeftMillis(this.instances.keys(), Instances.key(this.name));
		assertThat(ttl).isBetween(1L, 1000L);
		lock.unlock();
	}

	@Test
	void renewLockWithATtlKeepsTheLockPastItsFirstLease() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		DistributedLock lock = registry.obtain(this.name);
		Lock theirs = this.instances.registry().obtain(this.name);
		assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(400))).isTrue();
		try {
			registry.renewLock(this.name, Duration.ofSeconds(3));
			Thread.sleep(600);
			assertThat(theirs.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void renewLockRefusesALockTheThreadDoesNotHoldOrLost() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry(Duration.ofMillis(100));
		Lock lock = registry.obtain(this.name);
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock(this.name))
			.withMessageContaining("Could not renew mutex at");
		lock.lock();
		await().atMost(PROMPTLY).until(() -> !this.instances.exists(this.name));
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock(this.name))
			.withMessageContaining("Could not renew mutex at");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
	}

	@Test
	void aFailedAttemptLeavesTheHoldersLeaseAlone() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry(Duration.ofSeconds(10));
		Lock lock = registry.obtain(this.name);
		lock.lock();
		long before = LockRecords.leaseLeftMillis(this.instances.keys(), Instances.key(this.name));
		Future<Boolean> other = thread().submit(() -> registry.obtain(this.name).tryLock());
		assertThat(other.get(10, TimeUnit.SECONDS)).isFalse();
		Future<Boolean> otherRegistry = thread().submit(() -> this.instances.registry().obtain(this.name).tryLock());
		assertThat(otherRegistry.get(10, TimeUnit.SECONDS)).isFalse();
		long after = LockRecords.leaseLeftMillis(this.instances.keys(), Instances.key(this.name));
		assertThat(after).isLessThanOrEqualTo(before);
		lock.unlock();
	}

	// Re-entry asks Redis

	@Test
	void aReentryExtendsTheLeaseAsSpringIntegrationsRegistryDoes() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry(Duration.ofMillis(2000));
		Lock lock = registry.obtain(this.name);
		lock.lock();
		Thread.sleep(1000);
		assertThat(lock.tryLock()).isTrue();
		long ttl = LockRecords.leaseLeftMillis(this.instances.keys(), Instances.key(this.name));
		assertThat(ttl).isGreaterThan(1500);
		lock.unlock();
		lock.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
	}

	@Test
	void aReentryFindsADeletedHoldGoneAndAnswersFalseAtOnce() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		Lock lock = registry.obtain(this.name);
		lock.lock();
		long token = registry.fencingToken(this.name);
		this.instances.keys().delete(Instances.key(this.name));
		long start = System.nanoTime();
		assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		// The lost hold's acquisition is answered by its unlock, which reports the loss.
		assertThat(registry.holdCount(this.name)).isOne();
		assertThatIllegalStateException().isThrownBy(() -> registry.fencingToken(this.name));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(registry.holdCount(this.name)).isZero();
		assertThatIllegalStateException().isThrownBy(lock::unlock);
		// Asked afresh, the lock is taken again with a new token.
		assertThat(lock.tryLock()).isTrue();
		assertThat(registry.fencingToken(this.name)).isGreaterThan(token);
		lock.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
	}

	@Test
	void aReentryThroughLockTakesTheLockAfreshAndLaterHoldsUnlockFirst() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		Lock lock = registry.obtain(this.name);
		lock.lock();
		this.instances.keys().delete(Instances.key(this.name));
		lock.lock();
		assertThat(this.instances.exists(this.name)).isTrue();
		assertThat(registry.holdCount(this.name)).isEqualTo(2);
		lock.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(registry.holdCount(this.name)).isZero();
	}

	@Test
	void aCallerThatNeverUnlocksALostHoldLeavesNothingHeld() throws Exception {
		// What the leader initiator does when revoked: it drops the acquisition.
		RedisLockRegistryAdapter registry = this.instances.registry();
		Lock lock = registry.obtain(this.name);
		assertThat(lock.tryLock()).isTrue();
		this.instances.keys().delete(Instances.key(this.name));
		assertThat(lock.tryLock()).isFalse();
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		lock.unlock();
		assertThat(this.instances.exists(this.name)).isFalse();
		Lock other = this.instances.registry().obtain(this.name);
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	@Test
	void aWatchdogHoldFixedByAReentryIsRenewedByTheRegistry() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		registry.setLeaseTime(Duration.ofSeconds(2));
		Lock lock = registry.obtain(this.name);
		Lock other = this.instances.registry().obtain(this.name);
		lock.lock();
		lock.lock();
		long ttl = LockRecords.leaseLeftMillis(this.instances.keys(), Instances.key(this.name));
		assertThat(ttl).isBetween(1L, 2000L);
		// 2.5 leases: only a renewal over a second late loses it.
		Thread.sleep(5000);
		assertThat(other.tryLock()).isFalse();
		lock.unlock();
		assertThat(other.tryLock()).isFalse();
		lock.unlock();
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	@Test
	void fencingTokensIncreaseAcrossHoldersAndStayOnReentry() throws Exception {
		RedisLockRegistryAdapter registry = this.instances.registry();
		RedisLockRegistryAdapter other = this.instances.registry();
		assertThatIllegalStateException().isThrownBy(() -> registry.fencingToken(this.name));
		Lock lock = registry.obtain(this.name);
		lock.lock();
		long first = registry.fencingToken(this.name);
		lock.lock();
		assertThat(registry.fencingToken(this.name)).isEqualTo(first);
		lock.unlock();
		lock.unlock();
		Lock theirs = other.obtain(this.name);
		theirs.lock();
		long second = other.fencingToken(this.name);
		assertThat(second).isGreaterThan(first);
		assertThatIllegalStateException().isThrownBy(() -> registry.fencingToken(this.name));
		theirs.unlock();
	}

}
