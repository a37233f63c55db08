package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.LockLostEvent;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.ReactiveLockContext;
import io.github.redislock.core.RedisLock;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Asynchronous holds on a real Redis (single server and Cluster): acquired without
 * parking a thread, held until the work completes, released from any thread.
 */
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class AsyncLockTests {

	private final LockTemplates templates;

	private final RedisTarget redis;

	private final String name;

	AsyncLockTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.templates = new LockTemplates(this.redis);
		this.name = this.redis.lockName("async-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	private StringRedisTemplate raw() {
		return this.redis.template();
	}

	private String lockKey() {
		return "redislock:{" + this.name + "}";
	}

	@Test
	void aThousandMonosOnOneKeyFromTwoInstancesExcludeEachOtherWithoutParkingThreads() {
		DefaultReactiveRedisLockTemplate first = new DefaultReactiveRedisLockTemplate(this.templates.create());
		DefaultReactiveRedisLockTemplate second = new DefaultReactiveRedisLockTemplate(this.templates.create());
		SectionHistory history = new SectionHistory();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		Scheduler scheduler = Schedulers.newParallel("async-test", 2);
		int threadsBefore = Thread.activeCount();
		AtomicInteger peakThreads = new AtomicInteger(threadsBefore);
		try {
			List<Mono<Long>> calls = new ArrayList<>();
			for (int i = 0; i < 1000; i++) {
				DefaultReactiveRedisLockTemplate template = (i % 2 == 0) ? first : second;
				calls.add(template.execute(this.name, Duration.ofMinutes(2), null, (token) -> Mono.fromCallable(() -> {
					if (inside.incrementAndGet() > 1) {
						overlaps.incrementAndGet();
					}
					peakThreads.accumulateAndGet(Thread.activeCount(), Math::max);
					long start = System.nanoTime();
					inside.decrementAndGet();
					history.add(true, start, System.nanoTime());
					return token;
				})).subscribeOn(scheduler));
			}
			List<Long> tokens = Flux.merge(calls).collectList().block(Duration.ofMinutes(3));
			assertThat(tokens).hasSize(1000).doesNotHaveDuplicates();
			assertThat(overlaps).hasValue(0);
			assertThat(history.writeOverlaps()).isEmpty();
			// 1,000 waiting calls, and no thread per waiter: what grew is the engine's
			// few callback and I/O threads, not a thousand parked ones.
			assertThat(peakThreads.get() - threadsBefore).as("threads added while 1,000 calls waited").isLessThan(64);
		}
		finally {
			scheduler.dispose();
		}
	}

	@Test
	void cancellingAMonoThatHoldsTheLockReleasesItAtOnce() {
		DefaultRedisLockTemplate template = this.templates.create();
		DefaultReactiveRedisLockTemplate reactive = new DefaultReactiveRedisLockTemplate(template);
		CompletableFuture<Long> held = new CompletableFuture<>();
		Disposable subscription = reactive
			.execute(this.name, Duration.ofSeconds(5), null,
					(token) -> Mono.<Long>never().doOnSubscribe((s) -> held.complete(token)))
			.subscribe();
		assertThat(held.join()).isPositive();
		assertThat(LockRecords.isHeld(raw(), lockKey())).isTrue();
		subscription.dispose();
		await().atMost(Duration.ofSeconds(5)).until(() -> !LockRecords.isHeld(raw(), lockKey()));
		assertThat(template.getActiveHoldCount()).isZero();
	}

	@Test
	void cancellingAWaitingAcquisitionLeavesNothingBehind() throws Exception {
		DefaultRedisLockTemplate holderTemplate = this.templates.create();
		DefaultRedisLockTemplate waiterTemplate = this.templates.create();
		RedisLock write = holderTemplate.getReadWriteLock(this.name).writeLock();
		assertThat(write.tryLock(Duration.ZERO, null)).isTrue();
		try {
			RedisLock waitingWrite = waiterTemplate.getReadWriteLock(this.name).writeLock();
			CompletableFuture<Optional<LockHandle>> waiting = waitingWrite.tryAcquireAsync(Duration.ofSeconds(30),
					null);
			String queuedKey = "redislock:{" + this.name + "}:queued";
			await().atMost(Duration.ofSeconds(5)).until(() -> raw().hasKey(queuedKey));
			assertThat(waiterTemplate.signals().waiterCount()).isEqualTo(1);
			waiting.cancel(false);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(raw().hasKey(queuedKey)).as("the writer's marker").isFalse());
			assertThat(waiterTemplate.signals().waiterCount()).isZero();
			assertThat(waiterTemplate.getActiveHoldCount()).isZero();
		}
		finally {
			write.unlock();
		}
		// Nothing of the cancelled writer is left to hold a reader back.
		RedisLock read = waiterTemplate.getReadWriteLock(this.name).readLock();
		assertThat(read.tryLock(Duration.ZERO, null)).isTrue();
		read.unlock();
	}

	@Test
	void aFutureThatCompletesAfterThreeLeasesKeepsTheLockAndReleasesItOnCompletion() {
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofMillis(600));
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = template.executeAsync(this.name, Duration.ZERO, null, () -> work);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockRecords.isHeld(raw(), lockKey()));
		await().pollDelay(Duration.ofMillis(1800)).atMost(Duration.ofSeconds(5)).until(() -> true);
		assertThat(LockRecords.isHeld(raw(), lockKey())).as("renewed by the watchdog after three leases").isTrue();
		assertThat(result).isNotDone();
		work.complete("done");
		assertThat(result.join()).isEqualTo("done");
		assertThat(LockRecords.isHeld(raw(), lockKey())).as("released before the result completed").isFalse();
	}

	@Test
	void anExceptionallyCompletedFutureReleasesTheLockAndPassesTheFailureOn() {
		DefaultRedisLockTemplate template = this.templates.create();
		CompletableFuture<String> result = template.executeAsync(this.name, Duration.ZERO, null,
				() -> CompletableFuture.failedFuture(new IllegalStateException("work failed")));
		assertThatExceptionOfType(Exception.class).isThrownBy(result::join)
			.withRootCauseInstanceOf(IllegalStateException.class)
			.withMessageContaining("work failed");
		assertThat(LockRecords.isHeld(raw(), lockKey())).isFalse();
		assertThat(template.getActiveHoldCount()).isZero();
	}

	@Test
	void anAsynchronousHoldKeepsItsHoldAtLeastAfterRelease() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock lock = template.getLock(this.name).withHoldAtLeast(Duration.ofSeconds(2));
		LockHandle hold = lock.tryAcquireAsync(Duration.ZERO, null).get(10, TimeUnit.SECONDS).orElseThrow();
		hold.releaseAsync().get(10, TimeUnit.SECONDS);
		assertThat(LockRecords.isHeld(raw(), lockKey())).as("kept for what remains of holdAtLeast").isTrue();
		assertThat(LockRecords.leaseLeftMillis(raw(), lockKey())).isBetween(1L, 2000L);
		assertThat(template.getActiveHoldCount()).isZero();
	}

	@Test
	void aHoldNoThreadOwnsIsTakenOnTheCallingThreadAndExtendedAndReleasedFromOthers() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofMillis(600));
		RedisLock other = this.templates.create().getLock(this.name);
		LockHandle handle = template.tryAcquire(this.name, Duration.ZERO, null, null).orElseThrow();
		assertThat(handle.getName()).isEqualTo(this.name);
		assertThat(handle.isHeld()).isTrue();
		assertThat(handle.fencingToken()).isPositive();
		// Renewed by the watchdog past its lease...
		await().pollDelay(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(5)).until(() -> true);
		assertThat(handle.isHeld()).isTrue();
		// ...and owned by no thread: not re-entrant, not this thread's to unlock.
		RedisLock sameName = template.getLock(this.name);
		assertThat(sameName.tryLock(Duration.ZERO, null)).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(sameName::unlock);
		assertThat(template.tryAcquire(this.name, Duration.ZERO, null, null)).isEmpty();
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			assertThat(threads.submit(() -> handle.extend(Duration.ofSeconds(20))).get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(LockRecords.leaseLeftMillis(raw(), lockKey())).isBetween(10_000L, 20_000L);
			await().pollDelay(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> true);
			assertThat(LockRecords.leaseLeftMillis(raw(), lockKey())).as("no longer renewed")
				.isBetween(10_000L, 19_500L);
			assertThat(other.tryLock(Duration.ZERO, null)).isFalse();
			threads.submit(handle::release).get(10, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(handle.isHeld()).isFalse();
		assertThat(LockRecords.isHeld(raw(), lockKey())).isFalse();
		assertThat(handle.extend(Duration.ofSeconds(5))).as("after its release").isFalse();
		assertThat(LockRecords.isHeld(raw(), lockKey())).isFalse();
		assertThat(template.getActiveHoldCount()).isZero();
		assertThat(other.tryLock(Duration.ZERO, null)).isTrue();
		other.unlock();
	}

	@Test
	void aHandlesExtensionFindsItsLossAtOnce() {
		DefaultRedisLockTemplate template = this.templates.create();
		List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
		template.setLockLostListener(lost::add);
		LockHandle handle = template.tryAcquire(this.name, Duration.ZERO, null, null).orElseThrow();
		raw().delete(lockKey());
		assertThat(handle.extend(Duration.ofSeconds(30))).isFalse();
		assertThat(handle.isHeld()).isFalse();
		assertThat(LockRecords.isHeld(raw(), lockKey())).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> lost.size() == 1);
		assertThat(lost.get(0).getFencingToken()).isEqualTo(handle.fencingToken());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::release);
	}

	@Test
	void aHoldNoThreadOwnsKeepsItsHoldAtLeastCountedFromAcquisitionOrExtension() {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock other = this.templates.create().getLock(this.name);
		LockHandle handle = template
			.tryAcquire(this.name, Duration.ZERO, Duration.ofSeconds(30), Duration.ofMillis(800))
			.orElseThrow();
		handle.release();
		assertThat(other.tryLock(Duration.ZERO, null)).as("kept for its hold-at-least").isFalse();
		assertThat(LockRecords.leaseLeftMillis(raw(), lockKey())).isBetween(1L, 800L);
		await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> other.tryLock(Duration.ZERO, null));
		other.unlock();
		LockHandle extended = template.tryAcquire(this.name, Duration.ZERO, null, Duration.ofMillis(800)).orElseThrow();
		await().pollDelay(Duration.ofMillis(900)).atMost(Duration.ofSeconds(5)).until(() -> true);
		long extendedAt = System.nanoTime();
		assertThat(extended.extend(Duration.ofSeconds(30))).isTrue();
		extended.release();
		assertThat(other.tryLock(Duration.ZERO, null)).as("kept for its hold-at-least from the extension").isFalse();
		await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> other.tryLock(Duration.ZERO, null));
		assertThat(Duration.ofNanos(System.nanoTime() - extendedAt)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
		other.unlock();
	}

	@Test
	void anExtensionWithAHoldAtLeastOfItsOwnReplacesTheHoldsOwn() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock other = this.templates.create().getLock(this.name);
		LockHandle none = template.tryAcquire(this.name, Duration.ZERO, Duration.ofSeconds(30), null).orElseThrow();
		long extendedAt = System.nanoTime();
		assertThat(none.extend(Duration.ofSeconds(30), Duration.ofMillis(800))).isTrue();
		none.release();
		assertThat(other.tryLock(Duration.ZERO, null)).as("kept for the extension's hold-at-least").isFalse();
		assertThat(LockRecords.leaseLeftMillis(raw(), lockKey())).isBetween(1L, 800L);
		await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> other.tryLock(Duration.ZERO, null));
		assertThat(Duration.ofNanos(System.nanoTime() - extendedAt)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
		other.unlock();
		LockHandle longer = template
			.tryAcquire(this.name, Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(20))
			.orElseThrow();
		assertThat(longer.extend(Duration.ofSeconds(30), Duration.ofMillis(300))).isTrue();
		assertThat(longer.extend(Duration.ofSeconds(30), Duration.ZERO)).isTrue();
		longer.release();
		assertThat(other.tryLock(Duration.ZERO, null))
			.as("released at once: no hold-at-least from the acquisition or the first extension")
			.isTrue();
		other.unlock();
		LockHandle reader = template.getReadWriteLock(this.name)
			.readLock()
			.withHoldAtLeast(Duration.ofSeconds(20))
			.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(30))
			.get(10, TimeUnit.SECONDS)
			.orElseThrow();
		assertThat(reader.extend(Duration.ofSeconds(30), Duration.ofMillis(300))).isTrue();
		assertThat(reader.extend(Duration.ofSeconds(30), Duration.ZERO)).isTrue();
		reader.release();
		RedisLock writer = this.templates.create().getReadWriteLock(this.name).writeLock();
		assertThat(writer.tryLock(Duration.ZERO, null)).as("a reader released at once").isTrue();
		writer.unlock();
		LockHandle permit = template.getSemaphore(this.name, 1)
			.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(30))
			.get(10, TimeUnit.SECONDS)
			.orElseThrow();
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> permit.extend(Duration.ofSeconds(30), Duration.ofSeconds(1)));
		assertThat(permit.extend(Duration.ofSeconds(30), Duration.ZERO)).isTrue();
		permit.release();
	}

	@Test
	void aWaitForAHoldNoThreadOwnsEndsOnAnInterruptAndLeavesNothingBehind() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock holder = this.templates.create().getLock(this.name);
		holder.lock();
		CompletableFuture<Boolean> interruptKept = new CompletableFuture<>();
		CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			result.complete(template.tryAcquire(this.name, Duration.ofSeconds(30), null, null));
			interruptKept.complete(Thread.currentThread().isInterrupted());
		});
		waiter.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> template.signals().waiterCount() == 1);
		long interrupted = System.nanoTime();
		waiter.interrupt();
		assertThat(result.get(10, TimeUnit.SECONDS)).isEmpty();
		assertThat(Duration.ofNanos(System.nanoTime() - interrupted)).isLessThan(Duration.ofSeconds(5));
		assertThat(interruptKept.get(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> template.signals().waiterCount() == 0);
		holder.unlock();
		assertThat(template.getActiveHoldCount()).isZero();
		Thread.currentThread().interrupt();
		try {
			assertThat(template.tryAcquire(this.name, Duration.ofSeconds(30), null, null))
				.as("asked by an interrupted thread")
				.isEmpty();
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		LockHandle handle = template.tryAcquire(this.name, Duration.ZERO, null, null).orElseThrow();
		handle.release();
	}

	@Test
	void executeAsyncKeepsTheLockForItsHoldAtLeast() {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock other = this.templates.create().getLock(this.name);
		CompletableFuture<String> result = template.executeAsync(this.name, Duration.ZERO, null, Duration.ofSeconds(30),
				() -> CompletableFuture.completedFuture("done"));
		assertThat(result.join()).isEqualTo("done");
		assertThat(other.tryLock(Duration.ZERO, null)).as("kept for its hold-at-least").isFalse();
		assertThat(LockRecords.leaseLeftMillis(raw(), lockKey())).isBetween(20_000L, 30_000L);
		assertThat(template
			.executeAsync(this.name + "-none", Duration.ZERO, null, null,
					() -> CompletableFuture.completedFuture("none"))
			.join()).isEqualTo("none");
		assertThat(LockRecords.isHeld(raw(), "redislock:{" + this.name + "-none}")).as("no hold-at-least: released")
			.isFalse();
	}

	@Test
	void theHoldIsNotReentrantAndIsInTheLockContextOfTheSynchronousPart() {
		DefaultRedisLockTemplate template = this.templates.create();
		CompletableFuture<String> result = template.executeAsync(this.name, Duration.ZERO, null, () -> {
			assertThat(LockContext.lockName()).isEqualTo(this.name);
			// The same name again, from inside the hold: another owner, so not acquired.
			return template
				.executeAsync(this.name, Duration.ZERO, null, () -> CompletableFuture.completedFuture("inner"))
				.handle((value, failure) -> (failure != null) ? failure.getCause().getClass().getSimpleName() : value);
		});
		assertThat(result.join()).isEqualTo(LockAcquisitionException.class.getSimpleName());
	}

	@Test
	void aLossDuringAnAsynchronousHoldIsReported() {
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofMillis(600));
		List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
		template.setLockLostListener(lost::add);
		DefaultReactiveRedisLockTemplate reactive = new DefaultReactiveRedisLockTemplate(template);
		CompletableFuture<Boolean> heldAfterLoss = new CompletableFuture<>();
		Disposable subscription = reactive.execute(this.name, Duration.ZERO, null, (token) -> {
			raw().delete(lockKey());
			return Mono.delay(Duration.ofMillis(100))
				.repeat()
				.concatMap((tick) -> ReactiveLockContext.isHeld())
				.filter((held) -> !held)
				.next()
				.doOnNext(heldAfterLoss::complete);
		}).subscribe();
		try {
			assertThat(heldAfterLoss).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
			await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
			assertThat(lost.get(0).getLockName()).isEqualTo(this.name);
		}
		finally {
			subscription.dispose();
		}
	}

	@Test
	void withoutTheLockWithinTheWaitTimeTheFutureFailsNamingIt() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock blocker = this.templates.create().getLock(this.name);
		assertThat(blocker.tryLock(Duration.ZERO, null)).isTrue();
		try {
			CompletableFuture<String> result = template.executeAsync(this.name, Duration.ofMillis(200), null,
					() -> CompletableFuture.completedFuture("ran"));
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockAcquisitionException.class)
				.withMessageContaining(this.name);
		}
		finally {
			blocker.unlock();
		}
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void tenThousandVirtualThreadsOnTenKeysFinishAndExcludeEachOther() throws Exception {
		DefaultRedisLockTemplate first = this.templates.create();
		DefaultRedisLockTemplate second = this.templates.create();
		int[] counters = new int[10];
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger[] inside = new AtomicInteger[10];
		for (int i = 0; i < 10; i++) {
			inside[i] = new AtomicInteger();
		}
		SimpleAsyncTaskExecutor virtualThreads = new SimpleAsyncTaskExecutor("async-test-vt-");
		virtualThreads.setVirtualThreads(true);
		List<CompletableFuture<Void>> done = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			int key = i % 10;
			DefaultRedisLockTemplate template = (i % 2 == 0) ? first : second;
			done.add(CompletableFuture.runAsync(() -> {
				RedisLock lock = template.getLock(this.name + ":" + key);
				if (!lock.tryLock(Duration.ofMinutes(3), null)) {
					throw new IllegalStateException("not acquired");
				}
				try {
					if (inside[key].incrementAndGet() > 1) {
						overlaps.incrementAndGet();
					}
					counters[key]++;
					inside[key].decrementAndGet();
				}
				finally {
					lock.unlock();
				}
			}, virtualThreads));
		}
		CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
		virtualThreads.close();
		assertThat(overlaps).hasValue(0);
		for (int count : counters) {
			assertThat(count).isEqualTo(1000);
		}
	}

}
