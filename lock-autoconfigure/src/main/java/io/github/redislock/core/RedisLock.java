package io.github.redislock.core;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

/**
 * A distributed {@link Lock} on Redis, reentrant and owned by the calling thread.
 * <p>
 * {@link #lock()}, {@link #tryLock()} and
 * {@link #tryLock(long, java.util.concurrent.TimeUnit)} take the lock with the default
 * lease, renewed by a watchdog while held. {@link #unlock()} by a thread that does not
 * hold the lock throws {@link IllegalMonitorStateException} and leaves the holder's lock
 * untouched; when the lock was lost meanwhile it throws {@link LockLostException} (unless
 * {@code redislock.on-lock-lost=log}). {@link #newCondition()} is not supported.
 */
public interface RedisLock extends Lock {

	/**
	 * Acquire the lock, waiting up to {@code waitTime}.
	 * @param waitTime how long to wait; {@link Duration#ZERO} for one attempt
	 * @param leaseTime fixed lease after which the lock expires even while held, or
	 * {@code null} for the default lease renewed by the watchdog
	 * @return whether the lock was acquired; {@code false} also when the waiting thread
	 * was interrupted (its interrupt status is then set)
	 */
	boolean tryLock(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Return whether any owner holds the lock now.
	 * @return whether the lock is held
	 */
	boolean isLocked();

	/**
	 * Return whether the current thread holds the lock.
	 * @return whether the current thread holds it
	 */
	boolean isHeldByCurrentThread();

	/**
	 * Return how many times the current thread holds the lock.
	 * @return the hold count, {@code 0} when not held by the current thread
	 */
	int getHoldCount();

	/**
	 * Return the lease the lock has left, whoever holds it.
	 * @return the remaining lease, {@link Duration#ZERO} when not locked
	 */
	Duration remainingLease();

	/**
	 * Return the fencing token of the current thread's hold: strictly increasing per lock
	 * name across all holders, unchanged on re-entry.
	 * @return the fencing token
	 * @throws IllegalMonitorStateException when the current thread does not hold the lock
	 */
	long fencingToken();

	/**
	 * Delete the lock whoever holds it (administration); its holder finds it lost.
	 * @return whether there was a lock to delete
	 */
	boolean forceUnlock();

	/**
	 * Return the full name of the lock.
	 * @return the lock name
	 */
	String getName();

}
