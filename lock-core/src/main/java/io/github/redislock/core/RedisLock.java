package io.github.redislock.core;

import java.time.Duration;
import java.util.Optional;
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
 *
 * @since 0.1.0
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
	 * Return who holds the lock, on any instance: its instance id, host, process id,
	 * application name, when it was acquired and how much of its lease is left. For the
	 * read side of a read-write lock (and a semaphore), the reader whose lease ends last.
	 * One read of the lock and one of the holder's instance record; nothing is added to
	 * acquiring.
	 * @return the holder, or empty when the lock is free
	 * @since 0.1.0
	 */
	Optional<LockHolder> holder();

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

	/**
	 * Return this lock with a minimum hold: after its last unlock (also after the work
	 * failed) a hold taken through the returned lock keeps the lock taken until at least
	 * {@code holdAtLeast} after it was acquired, timed by Redis (the release shortens the
	 * lease to what remains, owner-checked, instead of deleting it). Meant for scheduled
	 * jobs: instances whose ticks differ by less than {@code holdAtLeast} skip the tick,
	 * whatever their clocks say. With a fixed lease, the lock expires at the end of that
	 * lease at the latest.
	 * @param holdAtLeast the minimum time from acquisition to release; zero for none
	 * @return a lock of the same name whose holds last at least that long
	 */
	RedisLock withHoldAtLeast(Duration holdAtLeast);

	/**
	 * Return this lock with a maximum hold: the watchdog stops renewing a hold taken
	 * through the returned lock once it has lasted {@code maxHold}; the lock then expires
	 * at the end of its current lease and is reported lost like any lost lock. Has no
	 * effect on holds with a fixed lease.
	 * @param maxHold how long the watchdog renews a hold; zero for no limit
	 * @return a lock of the same name whose holds are renewed at most that long
	 */
	RedisLock withMaxHold(Duration maxHold);

}
