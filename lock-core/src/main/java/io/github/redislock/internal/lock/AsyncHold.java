package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.core.LockHandle;
import io.github.redislock.core.LockLostException;
import io.github.redislock.support.Printable;
import org.jspecify.annotations.Nullable;
import io.github.redislock.support.CurrentLock;
import io.github.redislock.support.CurrentLocks;

import org.springframework.util.Assert;

/**
 * A lock held by an asynchronous call (a {@code CompletionStage}, a {@code Mono} or a
 * {@code Flux}) or by a handle a caller keeps
 * ({@link io.github.redislock.core.RedisLockTemplate#tryAcquire(String, Duration, Duration, Duration)}),
 * not by a thread: renewed by the watchdog like any hold (until it is extended), extended
 * and released once, from any thread. The engine's {@link LockHandle}; a semaphore's are
 * {@link AsyncPermit}s.
 *
 * @since 0.1.0
 */
public sealed class AsyncHold implements LockHandle, CurrentLock permits AsyncPermit {

	private final ThreadOwnedLock lock;

	private final LockHold hold;

	private final AtomicBoolean released = new AtomicBoolean();

	AsyncHold(ThreadOwnedLock lock, LockHold hold) {
		this.lock = lock;
		this.hold = hold;
	}

	/**
	 * Return the handle of a hold of {@code lock}: a permit for a semaphore's.
	 */
	static AsyncHold of(ThreadOwnedLock lock, LockHold hold) {
		return (lock instanceof SemaphoreLock) ? new AsyncPermit(lock, hold) : new AsyncHold(lock, hold);
	}

	/**
	 * Return the hold's fencing token.
	 * @return the token
	 */
	@Override
	public long fencingToken() {
		return this.hold.token();
	}

	/**
	 * Return the full lock name.
	 * @return the lock name
	 */
	@Override
	public String lockName() {
		return this.hold.name();
	}

	@Override
	public String getName() {
		return this.hold.name();
	}

	/**
	 * Return whether the lock is still held: {@code false} once it is released or known
	 * lost.
	 * @return whether it is held
	 */
	@Override
	public boolean isHeld() {
		return !this.released.get() && this.hold.isHeld();
	}

	@Override
	public String lostReason() {
		return this.hold.isHeld() ? "it was released" : this.hold.lostReason();
	}

	/**
	 * Throw when the lock is known lost.
	 * @throws LockLostException when it is
	 */
	public void ensureHeld() {
		if (!this.hold.isHeld()) {
			throw new LockLostException(this.hold.name(), this.hold.token(), this.hold.lostReason());
		}
	}

	/**
	 * Extend the hold to a new fixed lease from now, owner-checked, in one script call
	 * (see {@link LockHandle#extend}).
	 * @param lease the new lease
	 * @return whether it was extended; {@code false} when it is gone or released
	 */
	@Override
	public boolean extend(Duration lease) {
		long leaseMillis = ThreadOwnedLock.checkedLease(lease);
		if (this.released.get()) {
			return false;
		}
		return this.lock.extend(this.hold, leaseMillis, ThreadOwnedLock.KEEP_HOLD_AT_LEAST);
	}

	/**
	 * Extend the hold to a new fixed lease from now with a hold-at-least of its own,
	 * counted from this extension, in place of the hold's (see
	 * {@link LockHandle#extend(Duration, Duration)}).
	 * @param lease the new lease
	 * @param holdAtLeast the new hold-at-least
	 * @return whether it was extended; {@code false} when it is gone or released
	 */
	@Override
	public boolean extend(Duration lease, Duration holdAtLeast) {
		long leaseMillis = ThreadOwnedLock.checkedLease(lease);
		Assert.notNull(holdAtLeast, "'holdAtLeast' must not be null");
		Assert.isTrue(!holdAtLeast.isNegative(), "'holdAtLeast' must not be negative");
		if (this.released.get()) {
			return false;
		}
		return this.lock.extend(this.hold, leaseMillis, holdAtLeast.toMillis());
	}

	/**
	 * Release the lock; later calls do nothing.
	 * @return a future that completes when Redis has answered, failing with
	 * {@link LockLostException} when the hold had been lost and
	 * {@code redislock.on-lock-lost=throw}
	 */
	@Override
	public CompletableFuture<@Nullable Void> releaseAsync() {
		if (!this.released.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		return this.lock.releaseAsync(this.hold);
	}

	/**
	 * Release the lock and wait for Redis's answer on the calling thread; later calls do
	 * nothing (see {@link LockHandle#release()}).
	 * @throws LockLostException when the hold had been lost and
	 * {@code redislock.on-lock-lost=throw}
	 */
	@Override
	public void release() {
		if (!this.released.compareAndSet(false, true)) {
			return;
		}
		try {
			this.lock.releaseBlocking(this.hold);
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	/**
	 * Run {@code action} with this hold as the current thread's innermost lock (for
	 * {@link io.github.redislock.core.LockContext}), described by this handle: released
	 * meanwhile (from another thread), it is no longer held there either, as
	 * {@link #isHeld()} says and as {@code ReactiveLockContext} says of it.
	 * @param <T> the action's result
	 * @param action what to run
	 * @return its result
	 */
	@Override
	public <T extends @Nullable Object> T runInContext(java.util.function.Supplier<T> action) {
		CurrentLocks.entered(this);
		try {
			return action.get();
		}
		finally {
			CurrentLocks.exited(this);
		}
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + " '" + Printable.of(this.hold.name()) + "' (fencing token "
				+ this.hold.token() + ")";
	}

}
