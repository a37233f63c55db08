package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import io.github.redislock.core.RedisLock;
import io.github.redislock.support.Printable;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import io.github.redislock.support.CurrentLocks;

/**
 * Base of the lock types: ownership by the calling thread, local re-entry counting, the
 * {@link java.util.concurrent.locks.Lock} methods, extensions, and what a thread asking
 * again for its lost hold gets. Subclasses take a fresh hold, extend one and release the
 * last one.
 * <p>
 * A thread asking again for a hold of its own that is known lost (or past its local
 * deadline) does not re-enter it: the loss is reported (once for the hold, as any loss),
 * the lost hold is given back in Redis, owner-checked, and a fresh attempt is made with
 * the caller's wait and lease. When it succeeds, the fresh hold (a new owner id, a new
 * fencing token) takes the lost hold's place, with its outstanding holds: the count is
 * the lost hold's plus one, since each acquisition made before still needs its unlock,
 * and the thread's {@link io.github.redislock.core.LockContext} describes the fresh hold
 * in the frames of those acquisitions too. So whichever unlock comes first, the fresh
 * hold is released only by the last one, as with any reentrant lock. When the attempt
 * fails, the caller gets {@code false} (or its wait goes on: {@code lock()}) and the lost
 * hold stays as it was, with its count: its last unlock reports the loss as before
 * ({@link io.github.redislock.core.LockLostException} unless
 * {@code redislock.on-lock-lost=log}), without another release in Redis.
 */
abstract class ThreadOwnedLock implements RedisLock {

	/**
	 * For {@link #extend(LockHold, long, long)}: the hold keeps its own hold-at-least,
	 * counted again from the extension.
	 */
	static final long KEEP_HOLD_AT_LEAST = -1;

	protected final String name;

	/** Key of this lock's hold in Redis: what the watchdog renews. */
	protected final String key;

	/** What holds taken through this lock object keep at least and at most. */
	protected final HoldBounds bounds;

	/** How acquisitions through this lock object are measured. */
	protected final LockMetricNames.Tag metricTag;

	ThreadOwnedLock(String name, String key, HoldBounds bounds, LockMetricNames.Tag metricTag) {
		this.name = name;
		this.key = key;
		this.bounds = bounds;
		this.metricTag = metricTag;
	}

	/**
	 * Return a lock object of the same lock whose holds have other bounds and are
	 * measured as {@code metricTag} says.
	 */
	abstract ThreadOwnedLock copy(HoldBounds bounds, LockMetricNames.Tag metricTag);

	@Override
	public RedisLock withHoldAtLeast(Duration holdAtLeast) {
		Assert.notNull(holdAtLeast, "'holdAtLeast' must not be null");
		Assert.isTrue(!holdAtLeast.isNegative(), "'holdAtLeast' must not be negative");
		return copy(this.bounds.withHoldAtLeast(holdAtLeast.toMillis()), this.metricTag);
	}

	@Override
	public RedisLock withMaxHold(Duration maxHold) {
		Assert.notNull(maxHold, "'maxHold' must not be null");
		Assert.isTrue(!maxHold.isNegative(), "'maxHold' must not be negative");
		return copy(this.bounds.withMaxHold(maxHold.toMillis()), this.metricTag);
	}

	@Override
	public RedisLock withMetricName(String metricName, boolean skipsWhenNotAcquired) {
		return copy(this.bounds, LockMetricNames.Tag.declared(metricName, skipsWhenNotAcquired));
	}

	/**
	 * Return where the holds of this lock's template are kept.
	 */
	abstract HoldRegistry holds();

	/**
	 * Take the lock for a thread that does not hold it yet, registering the hold and
	 * entering it into the {@link io.github.redislock.core.LockContext}.
	 * @param waitNanos how long to wait, negative for as long as it takes
	 * @return whether it was acquired
	 */
	abstract boolean acquireNew(long threadId, long waitNanos, @Nullable Duration leaseTime, boolean interruptible)
			throws InterruptedException;

	/**
	 * Release the last hold, already removed from the registry and the context.
	 */
	abstract void releaseLast(LockHold hold);

	/**
	 * Give a lost hold back in Redis, owner-checked (keeping what remains of its
	 * hold-at-least), before its thread takes the lock afresh: it may still be there when
	 * only its local deadline passed, and would then block the fresh attempt. Never
	 * throws: a release that fails is sent again later.
	 */
	abstract void abandon(LockHold hold);

	/**
	 * Extend a hold in Redis to a new fixed lease: one script call (one per node for
	 * RedLock). On success the implementation moves the hold's local deadline
	 * ({@link LockHold#extended}).
	 * @param holdAtLeastMillis the hold-at-least to count from the extension (0: none)
	 * @return {@code null} when extended, otherwise why the hold is found lost
	 */
	abstract @Nullable String extendInRedis(LockHold hold, long leaseMillis, long holdAtLeastMillis);

	/**
	 * Return where this lock's losses are reported.
	 */
	abstract LockLossReporter losses();

	/**
	 * Release a hold that no thread owns (an {@link AsyncHold}'s), from any thread.
	 * @return a future that completes once the release was answered; it fails with
	 * {@link io.github.redislock.core.LockLostException} when the hold had been lost and
	 * {@code redislock.on-lock-lost=throw}
	 */
	abstract CompletableFuture<@Nullable Void> releaseAsync(LockHold hold);

	/**
	 * Release an asynchronous hold and wait for it on the calling thread (a blocking
	 * {@code close()}): by default, waits for {@link #releaseAsync}.
	 * @param hold the hold
	 * @throws java.util.concurrent.CompletionException as that future fails
	 */
	void releaseBlocking(LockHold hold) {
		releaseAsync(hold).join();
	}

	@Override
	public void lock() {
		boolean interrupted = false;
		while (true) {
			try {
				acquire(-1, null, false);
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(-1, null, true);
	}

	@Override
	public boolean tryLock() {
		try {
			return acquire(0, null, true);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return acquire(Math.max(0, unit.toNanos(time)), null, true);
	}

	@Override
	public boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) {
		Assert.notNull(waitTime, "'waitTime' must not be null");
		Assert.isTrue(!waitTime.isNegative(), "'waitTime' must not be negative");
		Assert.isTrue(leaseTime == null || leaseTime.toMillis() > 0, "'leaseTime' must be positive");
		try {
			return acquire(waitTime.toNanos(), leaseTime, true);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private boolean acquire(long waitNanos, @Nullable Duration leaseTime, boolean interruptible)
			throws InterruptedException {
		long threadId = DefaultRedisLockTemplate.currentThreadId();
		LockHold held = holds().get(this.key, threadId);
		if (held == null) {
			return acquireNew(threadId, waitNanos, leaseTime, interruptible);
		}
		if (held.reenter(this.bounds)) {
			CurrentLocks.entered(held);
			return true;
		}
		return acquireInsteadOfLost(held, threadId, waitNanos, leaseTime, interruptible);
	}

	/**
	 * The calling thread asks again for its hold, which is lost: report the loss, give
	 * the lost hold back, and try afresh (see the class description).
	 */
	private boolean acquireInsteadOfLost(LockHold lost, long threadId, long waitNanos, @Nullable Duration leaseTime,
			boolean interruptible) throws InterruptedException {
		losses().lostFoundByHolder(lost, lost.lostReason());
		if (lost.abandon()) {
			abandon(lost);
		}
		if (!acquireNew(threadId, waitNanos, leaseTime, interruptible)) {
			return false;
		}
		LockHold fresh = holds().get(this.key, threadId);
		Assert.state(fresh != null && fresh != lost, "The fresh hold is not registered");
		fresh.absorb(lost);
		CurrentLocks.replace(lost, fresh);
		return true;
	}

	@Override
	public void unlock() {
		LockHold hold = currentHold();
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + Printable.of(this.name) + "' is not held by the current thread ("
							+ Thread.currentThread().getName() + "); only the thread that acquired it can release it");
		}
		CurrentLocks.exited(hold);
		if (hold.exit() > 0) {
			return;
		}
		hold.releasing();
		holds().remove(hold);
		if (hold.abandoned()) {
			// Lost, and given back when the thread asked for the lock again (which it did
			// not get): nothing left in Redis to release.
			losses().releasedLost(hold, hold.lostReason());
			return;
		}
		releaseLast(hold);
	}

	@Override
	public boolean extend(Duration lease) {
		long leaseMillis = checkedLease(lease);
		LockHold hold = currentHold();
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + Printable.of(this.name) + "' is not held by the current thread ("
							+ Thread.currentThread().getName() + "); only the thread that acquired it can extend it");
		}
		return extend(hold, leaseMillis, KEEP_HOLD_AT_LEAST);
	}

	/**
	 * Return a new lease in milliseconds, checked.
	 */
	static long checkedLease(Duration lease) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.isTrue(lease.toMillis() > 0, "'lease' must be positive");
		return lease.toMillis();
	}

	/**
	 * Extend {@code hold} of this lock (a thread's, or a handle's from any thread) to a
	 * new fixed lease from now. Extensions of one hold take turns; the watchdog leaves it
	 * alone from the moment the first is sent. A hold known lost (or released) answers
	 * {@code false} without a call; one that Redis no longer has as ours is reported lost
	 * at once (once, as any loss; the holder is not interrupted: it learns from the
	 * answer), unless it was released meanwhile.
	 * @param holdAtLeastMillis the hold-at-least that replaces the hold's own, counted
	 * from this extension, or {@link #KEEP_HOLD_AT_LEAST} to count the hold's own again
	 * @return whether it was extended
	 */
	boolean extend(LockHold hold, long leaseMillis, long holdAtLeastMillis) {
		hold.extending().lock();
		try {
			if (hold.isReleased()) {
				return false;
			}
			if (!hold.isHeld()) {
				losses().lostFoundByHolder(hold, hold.lostReason());
				return false;
			}
			hold.fixLease();
			boolean replacing = holdAtLeastMillis != KEEP_HOLD_AT_LEAST;
			String lost = extendInRedis(hold, leaseMillis, replacing ? holdAtLeastMillis : hold.holdAtLeastMillis());
			if (lost == null) {
				if (replacing) {
					hold.replaceHoldAtLeast(holdAtLeastMillis);
				}
				// (Unless its deadline check found it lost while the extension was on its
				// way: a loss once reported stands.)
				return hold.isHeld();
			}
			if (!hold.isReleased()) {
				losses().lostFoundByHolder(hold, lost);
			}
			return false;
		}
		finally {
			hold.extending().unlock();
		}
	}

	private @Nullable LockHold currentHold() {
		return holds().get(this.key, DefaultRedisLockTemplate.currentThreadId());
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Distributed locks do not support conditions");
	}

	@Override
	public boolean isHeldByCurrentThread() {
		LockHold hold = currentHold();
		return hold != null && hold.isHeld();
	}

	@Override
	public int getHoldCount() {
		LockHold hold = currentHold();
		return (hold != null) ? hold.count() : 0;
	}

	@Override
	public long fencingToken() {
		LockHold hold = currentHold();
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + Printable.of(this.name) + "' is not held by the current thread");
		}
		return hold.token();
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + " '" + Printable.of(this.name) + "'";
	}

}
