package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockLostEvent;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.OnLockLost;
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

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Behaviour of one exclusive lock against a real Redis server and a real Redis Cluster.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class RedisLockTests {

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	private final String name;

	RedisLockTests(RedisMode mode, RedisTargets targets) {
		RedisTarget redis = targets.get(mode);
		this.templates = new LockTemplates(redis);
		this.raw = redis.template();
		this.name = redis.lockName("test-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.otherThread.shutdownNow();
		this.templates.close();
	}

	private <T> T inOtherThread(java.util.concurrent.Callable<T> action) throws Exception {
		return this.otherThread.submit(action).get(30, TimeUnit.SECONDS);
	}

	@Test
	void lockIsReentrantAndReleasedByTheLastUnlock() {
		RedisLock lock = this.templates.create().getLock(this.name);
		lock.lock();
		lock.lock();
		assertThat(lock.getHoldCount()).isEqualTo(2);
		lock.unlock();
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.getHoldCount()).isZero();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void reentryThroughAnotherLockObjectOfTheSameNameCountsTheSameHold() {
		DefaultRedisLockTemplate template = this.templates.create();
		template.getLock(this.name).lock();
		assertThat(template.getLock(this.name).tryLock()).isTrue();
		assertThat(template.getLock(this.name).getHoldCount()).isEqualTo(2);
		template.getLock(this.name).unlock();
		template.getLock(this.name).unlock();
		assertThat(template.getLock(this.name).isLocked()).isFalse();
	}

	@Test
	void otherThreadOfTheSameInstanceCannotAcquireAHeldLock() throws Exception {
		RedisLock lock = this.templates.create().getLock(this.name);
		lock.lock();
		assertThat(inOtherThread(() -> lock.tryLock())).isFalse();
		lock.unlock();
		assertThat(inOtherThread(() -> {
			boolean acquired = lock.tryLock();
			lock.unlock();
			return acquired;
		})).isTrue();
	}

	@Test
	void releaseByNonOwnerThreadIsRefusedAndLeavesLockIntact() throws Exception {
		RedisLock lock = this.templates.create().getLock(this.name);
		lock.lock();
		long token = lock.fencingToken();
		Throwable refused = inOtherThread(() -> {
			try {
				lock.unlock();
				return null;
			}
			catch (IllegalMonitorStateException ex) {
				return ex;
			}
		});
		assertThat(refused).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(this.name);
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.fencingToken()).isEqualTo(token);
		lock.unlock();
	}

	@Test
	void releaseByAnotherInstanceIsRefusedAndLeavesLockIntact() {
		RedisLock mine = this.templates.create().getLock(this.name);
		RedisLock theirs = this.templates.create().getLock(this.name);
		mine.lock();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(theirs::unlock);
		assertThat(theirs.tryLock()).isFalse();
		assertThat(mine.isLocked()).isTrue();
		mine.unlock();
		assertThat(theirs.tryLock()).isTrue();
		theirs.unlock();
	}

	@Test
	void fixedLeaseExpiresAndFreesTheLock() {
		RedisLock holder = this.templates.create().getLock(this.name);
		RedisLock other = this.templates.create().getLock(this.name);
		assertThat(holder.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
		assertThat(holder.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(300));
		// polled in this thread: the lock is owned by the thread that takes it
		await().pollInSameThread()
			.atMost(Duration.ofSeconds(10))
			.until(() -> other.tryLock(Duration.ofMillis(100), null));
		assertThat(holder.isHeldByCurrentThread()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(holder::unlock)
			.withMessageContaining(this.name)
			.withMessageContaining("another owner");
		assertThat(other.isLocked()).as("the other owner's lock is untouched").isTrue();
		other.unlock();
	}

	@Test
	void watchdogKeepsTheLockThroughWorkLastingThreeLeases() {
		Duration lease = Duration.ofMillis(600);
		RedisLock holder = this.templates.create(lease).getLock(this.name);
		RedisLock other = this.templates.create(lease).getLock(this.name);
		holder.lock();
		long start = System.nanoTime();
		long workNanos = lease.multipliedBy(3).toNanos();
		while (System.nanoTime() - start < workNanos) {
			assertThat(other.tryLock()).isFalse();
			assertThat(holder.remainingLease()).isPositive();
			sleep(50);
		}
		assertThat(holder.isHeldByCurrentThread()).isTrue();
		holder.unlock();
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	@Test
	void lockDeletedBehindItsBackIsReportedLostAtRelease() {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		DefaultRedisLockTemplate template = this.templates.create();
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name);
		lock.lock();
		long token = lock.fencingToken();
		this.raw.delete(lockKey());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(token))
			.withMessageContaining("expired or was deleted");
		// Delivered on the events thread, never on the caller's or a renewal thread.
		await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
		assertThat(events).singleElement().satisfies((event) -> {
			assertThat(event.getLockName()).isEqualTo(this.name);
			assertThat(event.getFencingToken()).isEqualTo(token);
		});
	}

	@Test
	void lostLockOnlyLogsWhenConfiguredTo() {
		RedisLock lock = this.templates.create(LockSettings.DEFAULTS.withOnLockLost(OnLockLost.LOG)).getLock(this.name);
		lock.lock();
		this.raw.delete(lockKey());
		lock.unlock();
		assertThat(lock.getHoldCount()).isZero();
	}

	@Test
	void watchdogFindsADeletedLockLostWhileStillHeld() {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofMillis(300));
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name);
		lock.lock();
		this.raw.delete(lockKey());
		await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(LockContext.isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(LockContext::ensureHeld);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(events).hasSize(1);
	}

	@Test
	void aThreadTakingItsLostLockAgainGetsAFreshHoldAndTheLossIsReportedOnce() {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		DefaultRedisLockTemplate template = this.templates.create();
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name);
		RedisLock other = this.templates.create().getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
		long stale = lock.fencingToken();
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> !lock.isHeldByCurrentThread());
		// A fresh attempt in Redis, not LockLostException.
		assertThat(lock.tryLock()).isTrue();
		long fresh = lock.fencingToken();
		assertThat(fresh).isGreaterThan(stale);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(LockContext.isHeld()).isTrue();
		assertThat(LockContext.fencingToken()).isEqualTo(fresh);
		assertThat(LockRecords.token(this.raw, lockKey())).isEqualTo(Long.toString(fresh));
		// The lost hold's outstanding acquisition now counts on the fresh hold.
		assertThat(lock.getHoldCount()).isEqualTo(2);
		assertThat(other.tryLock()).isFalse();
		lock.unlock();
		assertThat(lock.isLocked()).as("the lost hold's unlock is still to come").isTrue();
		assertThat(other.tryLock()).isFalse();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(LockContext::fencingToken);
		await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
		sleep(200);
		assertThat(events).singleElement().satisfies((event) -> assertThat(event.getFencingToken()).isEqualTo(stale));
	}

	@Test
	void aThreadTakingItsLostLockAgainWhileAnotherInstanceHoldsItGetsFalseAndNoException() throws Exception {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		DefaultRedisLockTemplate template = this.templates.create();
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name);
		RedisLock other = this.templates.create().getLock(this.name);
		lock.lock();
		this.raw.delete(lockKey());
		assertThat(inOtherThread(() -> other.tryLock(Duration.ZERO, null))).isTrue();
		// Not known lost yet (no renewal has come by): re-entry is local.
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		// Known lost now, as a renewal or an extension finds it.
		assertThat(lock.extend(Duration.ofSeconds(30))).isFalse();
		long start = System.nanoTime();
		assertThat(lock.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(lock.tryLock()).isFalse();
		assertThat(lock.tryLock(Duration.ZERO, null)).isFalse();
		assertThat(lock.getHoldCount()).as("the lost hold, still to be unlocked").isEqualTo(1);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(lock.getHoldCount()).isZero();
		assertThat(other.isLocked()).as("the other instance's lock is untouched").isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
		sleep(200);
		assertThat(events).as("reported once").hasSize(1);
		inOtherThread(() -> {
			other.unlock();
			return null;
		});
	}

	@Test
	void aLostHoldStillInRedisIsGivenBackBeforeTheFreshAttempt() {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock lock = template.getLock(this.name);
		lock.lock();
		long stale = lock.fencingToken();
		// Lost by this instance's reckoning (a renewal that came too late, say) while
		// Redis still has it: taking it again must not wait for its own old hold.
		template.holds().get(lockKey(), Thread.currentThread().getId()).markLost("lost in a test");
		long start = System.nanoTime();
		assertThat(lock.tryLock(Duration.ofSeconds(10), null)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		assertThat(lock.fencingToken()).isGreaterThan(stale);
		lock.unlock();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void fencingTokensStrictlyIncreaseAcrossHoldersAndStayOnReentry() {
		RedisLock first = this.templates.create().getLock(this.name);
		RedisLock second = this.templates.create().getLock(this.name);
		long previous = 0;
		for (int i = 0; i < 20; i++) {
			RedisLock lock = (i % 2 == 0) ? first : second;
			lock.lock();
			long token = lock.fencingToken();
			assertThat(token).isGreaterThan(previous);
			lock.lock();
			assertThat(lock.fencingToken()).isEqualTo(token);
			assertThat(LockContext.fencingToken()).isEqualTo(token);
			lock.unlock();
			lock.unlock();
			previous = token;
		}
	}

	@Test
	void fencingTokensKeepIncreasingAfterTheCounterIsGone() {
		RedisLock lock = this.templates.create().getLock(this.name);
		lock.lock();
		long first = lock.fencingToken();
		lock.unlock();
		// The whole key gone (its retention over, or Redis restarted empty): the last
		// token with it.
		this.raw.delete(lockKey());
		lock.lock();
		assertThat(lock.fencingToken()).isGreaterThan(first);
		lock.unlock();
	}

	@Test
	void fencingTokenOfALockNotHeldIsRefused() {
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> this.templates.create().getLock(this.name).fencingToken());
	}

	@Test
	void everyKeyOfALockHasALeaseAndTheSameClusterSlot() {
		RedisLock lock = this.templates.create().getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		Set<String> keys = this.raw.keys("redislock:{" + this.name + "}*");
		assertThat(keys).as("one key per lock").containsExactly(lockKey());
		for (String key : keys) {
			assertThat(this.raw.getExpire(key, TimeUnit.MILLISECONDS)).as(key).isPositive();
		}
		assertThat(keys.stream().map(ClusterSlotHashUtil::calculateSlot).collect(Collectors.toSet())).hasSize(1);
		lock.unlock();
	}

	@Test
	void tryLockGivesUpAfterTheWaitTime() throws Exception {
		RedisLock holder = this.templates.create().getLock(this.name);
		RedisLock waiter = this.templates.create().getLock(this.name);
		holder.lock();
		long start = System.nanoTime();
		assertThat(waiter.tryLock(Duration.ofMillis(300), null)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(waiter.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
		holder.unlock();
	}

	@Test
	void interruptedWaiterGivesUp() throws Exception {
		RedisLock holder = this.templates.create().getLock(this.name);
		RedisLock waiter = this.templates.create().getLock(this.name);
		holder.lock();
		CompletableFuture<Throwable> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				waiter.lockInterruptibly();
				result.complete(null);
			}
			catch (Throwable ex) {
				result.complete(ex);
			}
		});
		thread.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> LockRecords.hasWaiters(this.raw, lockKey()));
		thread.interrupt();
		assertThat(result.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		holder.unlock();
	}

	@Test
	void forceUnlockDeletesWhoeverHoldsTheLock() {
		RedisLock holder = this.templates.create().getLock(this.name);
		RedisLock admin = this.templates.create().getLock(this.name);
		holder.lock();
		assertThat(admin.forceUnlock()).isTrue();
		assertThat(admin.isLocked()).isFalse();
		assertThat(admin.forceUnlock()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(holder::unlock);
	}

	@Test
	void remainingLeaseIsZeroWhenNotLocked() {
		assertThat(this.templates.create().getLock(this.name).remainingLease()).isZero();
	}

	@Test
	void conditionsAreNotSupported() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.templates.create().getLock(this.name).newCondition());
	}

	@Test
	void overlongLockNamesAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.templates.create().getLock("x".repeat(1001)))
			.withMessageContaining("1001 characters");
	}

	@Test
	void executeRunsTheActionUnderTheLockAndReleasesIt() {
		DefaultRedisLockTemplate template = this.templates.create();
		String result = template.execute(this.name, Duration.ZERO, null, () -> {
			assertThat(LockContext.lockName()).isEqualTo(this.name);
			assertThat(template.getLock(this.name).isHeldByCurrentThread()).isTrue();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(template.getLock(this.name).isLocked()).isFalse();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(LockContext::fencingToken);
	}

	@Test
	void executeThrowsWhenTheLockIsNotAcquired() {
		RedisLock holder = this.templates.create().getLock(this.name);
		holder.lock();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.templates.create().execute(this.name, Duration.ofMillis(50), null, () -> "no"))
			.withMessageContaining("'" + this.name + "'")
			.withMessageContaining("PT0.05S")
			.satisfies((ex) -> assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(50)));
		holder.unlock();
	}

	@Test
	void executeReleasesTheLockWhenTheActionFails() {
		DefaultRedisLockTemplate template = this.templates.create();
		assertThatExceptionOfType(java.lang.reflect.UndeclaredThrowableException.class)
			.isThrownBy(() -> template.execute(this.name, Duration.ZERO, null, () -> {
				throw new java.io.IOException("boom");
			}))
			.withCauseInstanceOf(java.io.IOException.class);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> template.execute(this.name, Duration.ZERO, null, () -> {
				throw new IllegalStateException("boom");
			}));
		assertThat(template.getLock(this.name).isLocked()).isFalse();
	}

	@Test
	void extendGivesTheHoldANewFixedLeaseFromNowThatTheWatchdogNoLongerRenews() {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofMillis(600));
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name);
		RedisLock other = this.templates.create().getLock(this.name);
		lock.lock();
		long token = lock.fencingToken();
		assertThat(lock.extend(Duration.ofSeconds(3))).isTrue();
		assertThat(pttl(lockKey())).as("the new lease, from now").isBetween(2000L, 3000L);
		// Longer than three watchdog ticks (every 200 ms): a renewal would have cut the
		// lease back to 600 ms.
		sleep(1000);
		assertThat(pttl(lockKey())).as("not renewed any more").isBetween(1000L, 2000L);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.fencingToken()).as("the same hold").isEqualTo(token);
		// A shorter lease shortens it; the local deadline follows.
		assertThat(lock.extend(Duration.ofMillis(400))).isTrue();
		assertThat(pttl(lockKey())).isBetween(1L, 400L);
		await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
		assertThat(LockContext.isHeld()).isFalse();
		// Found by this instance's deadline check.
		await().atMost(Duration.ofSeconds(5)).until(() -> !events.isEmpty());
		await().pollInSameThread()
			.atMost(Duration.ofSeconds(5))
			.until(() -> inOtherThread(() -> other.tryLock(Duration.ZERO, Duration.ofSeconds(30))));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageContaining("extended to PT0.4S");
		assertThat(other.isLocked()).as("the next holder's lock is untouched").isTrue();
	}

	@Test
	void extendOfAHoldDeletedBehindItsBackAnswersFalseAndReportsTheLossOnce() {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		DefaultRedisLockTemplate template = this.templates.create();
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name);
		lock.lock();
		long token = lock.fencingToken();
		this.raw.delete(lockKey());
		assertThat(lock.extend(Duration.ofSeconds(10))).isFalse();
		assertThat(LockRecords.isHeld(this.raw, lockKey())).as("nothing created").isFalse();
		// Known at once, not at the next renewal.
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(LockContext.isHeld()).isFalse();
		assertThat(Thread.currentThread().isInterrupted()).as("the caller is not interrupted").isFalse();
		await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
		assertThat(events).singleElement().satisfies((event) -> assertThat(event.getFencingToken()).isEqualTo(token));
		assertThat(lock.extend(Duration.ofSeconds(10))).as("known lost").isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageContaining("an extension found it expired or deleted");
		sleep(200);
		assertThat(events).as("reported once").hasSize(1);
	}

	@Test
	void extendNeverTouchesTheNextHoldersLock() throws Exception {
		RedisLock stale = this.templates.create().getLock(this.name);
		RedisLock next = this.templates.create().getLock(this.name);
		stale.lock();
		// Gone behind its back and taken by another instance before anyone noticed.
		this.raw.delete(lockKey());
		assertThat(inOtherThread(() -> next.tryLock(Duration.ZERO, Duration.ofSeconds(30)))).isTrue();
		long before = pttl(lockKey());
		assertThat(stale.extend(Duration.ofMinutes(5))).isFalse();
		assertThat(stale.isHeldByCurrentThread()).isFalse();
		assertThat(pttl(lockKey())).as("the next holder's lease").isBetween(before - 1000, before);
		assertThat(LockRecords.read(this.raw, lockKey()).orElseThrow().flags()).doesNotContain("f");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::unlock)
			.withMessageContaining("an extension found it held by another owner");
		assertThat(next.isLocked()).isTrue();
	}

	@Test
	void extendByAThreadNotHoldingTheLockIsRefusedAndLeavesTheHolderAlone() throws Exception {
		RedisLock lock = this.templates.create().getLock(this.name);
		RedisLock otherInstance = this.templates.create().getLock(this.name);
		lock.lock();
		Throwable refused = inOtherThread(() -> {
			try {
				lock.extend(Duration.ofMillis(100));
				return null;
			}
			catch (IllegalMonitorStateException ex) {
				return ex;
			}
		});
		assertThat(refused).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(this.name);
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> otherInstance.extend(Duration.ofMillis(100)));
		assertThat(pttl(lockKey())).as("the holder's lease").isGreaterThan(20_000L);
		assertThatIllegalArgumentException().isThrownBy(() -> lock.extend(Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> lock.extend(Duration.ofSeconds(-1)));
		lock.unlock();
	}

	@Test
	void anExtensionCountsANewHoldAtLeastFromItself() {
		RedisLock lock = this.templates.create().getLock(this.name).withHoldAtLeast(Duration.ofMillis(800));
		RedisLock other = this.templates.create().getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		// The hold-at-least counted from the acquisition has passed...
		sleep(900);
		long extended = System.nanoTime();
		assertThat(lock.extend(Duration.ofSeconds(30))).isTrue();
		lock.unlock();
		// ...the one counted from the extension has not.
		assertThat(other.tryLock(Duration.ZERO, null)).as("kept after the release").isFalse();
		assertThat(pttl(lockKey())).as("what remains of it, timed by Redis").isBetween(1L, 800L);
		await().pollInSameThread()
			.pollInterval(Duration.ofMillis(20))
			.atMost(Duration.ofSeconds(10))
			.until(() -> other.tryLock(Duration.ZERO, null));
		assertThat(Duration.ofNanos(System.nanoTime() - extended)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
		other.unlock();
	}

	private String lockKey() {
		return "redislock:{" + this.name + "}";
	}

	private long pttl(String key) {
		return LockRecords.leaseLeftMillis(this.raw, key);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
