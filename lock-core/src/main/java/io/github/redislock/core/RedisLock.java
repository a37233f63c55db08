package io.github.redislock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
 * <p>
 * Re-entry is counted by the holding thread, without asking Redis. A thread that asks
 * again for a lock whose hold it knows lost (a renewal or an {@link #extend extension}
 * found it gone, or its lease ran out) is not refused: the loss is reported (once, as any
 * loss), and a fresh attempt is made in Redis with the call's wait and lease, so
 * {@code tryLock} answers {@code false} while another owner holds the lock. A fresh hold
 * has a new {@linkplain #fencingToken() fencing token} and takes the lost hold's place
 * with its outstanding holds: {@link #getHoldCount()} is the lost hold's count plus one,
 * since every {@code lock()} made before still needs its {@code unlock()}, and only the
 * last unlock releases the lock. Not acquired, the lost hold stays as it was, and its
 * last unlock throws {@link LockLostException}. To learn whether a hold still stands in
 * Redis, extend it.
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
	 * Extend the current thread's hold of this lock: owner-checked, in one script call,
	 * the lock gets a new fixed lease of {@code lease} from now, timed by the Redis
	 * server; a hold with a minimum hold ({@link #withHoldAtLeast}) then stays taken
	 * after its release until at least that minimum after this extension (or after its
	 * acquisition, whichever ends later). From then on the lease is fixed: the watchdog
	 * no longer renews the hold, so extend it again before the lease runs out.
	 * {@link #isHeldByCurrentThread()} and {@link LockContext#isHeld()} follow the new
	 * lease.
	 * <p>
	 * An extension that finds the hold gone (its lease ran out, it was deleted, another
	 * owner holds the lock) answers {@code false}, leaves whatever is in Redis untouched,
	 * and reports the loss at once, as a renewal that finds it gone does (a
	 * {@link LockLostEvent}, a WARN line; the calling thread is not interrupted): so it
	 * also learns on demand whether the hold still stands in Redis. A hold known lost
	 * already answers {@code false} without asking Redis. When Redis cannot be reached
	 * the call fails with Spring's {@code DataAccessException}, and the hold keeps the
	 * lease it had, no longer renewed.
	 * @param lease the new lease, counted from now; positive
	 * @return whether the hold was extended; {@code false} when it is gone
	 * @throws IllegalMonitorStateException when the current thread does not hold this
	 * lock
	 * @throws UnsupportedOperationException when the lock type cannot extend a hold (the
	 * default)
	 * @since 0.1.0
	 */
	default boolean extend(Duration lease) {
		throw new UnsupportedOperationException(
				"Lock '" + getName() + "' (" + getClass().getName() + ") cannot extend a hold");
	}

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

	/**
	 * Acquire the lock for a hold that no thread owns, without blocking a thread while
	 * waiting: each attempt is an asynchronous call, and a waiting acquisition is moved
	 * on by the lock's release. The hold belongs to the returned {@link LockHandle}: it
	 * is not re-entrant (the calling thread does not hold the lock, and taking it again
	 * waits like any other owner), and any thread may release it. The lock's bounds
	 * ({@link #withHoldAtLeast}, {@link #withMaxHold}) apply to it.
	 * @param waitTime how long to wait; {@link Duration#ZERO} for one attempt
	 * @param leaseTime fixed lease after which the lock expires even while held, or
	 * {@code null} for the default lease renewed by the watchdog
	 * @return a future of the hold, or of empty when the wait time ran out; it completes
	 * on one of the template's callback threads (never on a Redis client's I/O thread),
	 * and fails with {@link LockAcquisitionException} when Redis could not be reached
	 * within the wait time. Cancelling it gives the acquisition up: a hold that comes
	 * after is released at once
	 * @throws UnsupportedOperationException when the lock type takes no holds without a
	 * thread (the default; RedLock)
	 * @since 0.1.0
	 */
	default CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
		throw new UnsupportedOperationException("Lock '" + getName() + "' (" + getClass().getName()
				+ ") takes no holds without a thread; acquire it with tryLock on the thread that runs the work");
	}

	/**
	 * Return this lock measured under a declared name: the template's
	 * {@link LockObserver} (the starter's {@code redislock.*} meters) is told
	 * {@code metricName} for acquisitions through the returned lock and their holds,
	 * instead of the part of the lock name before its first {@code :}. With
	 * {@code skipsWhenNotAcquired}, a wait that ends without the lock is told as
	 * {@linkplain LockObserver#skipped skipped}, not as a time-out: for callers that skip
	 * their work then, as annotated methods with {@code onFailure = SKIP} do.
	 * <p>
	 * The default returns this lock unchanged, for lock types that tell no observer.
	 * @param metricName the name to measure under, never a per-call key
	 * @param skipsWhenNotAcquired whether the caller skips its work when the lock is not
	 * acquired within its wait time
	 * @return a lock of the same name measured under {@code metricName}
	 * @since 0.1.0
	 */
	default RedisLock withMetricName(String metricName, boolean skipsWhenNotAcquired) {
		return this;
	}

	/**
	 * Return the exception for this lock not acquired within {@code waitTime} by the
	 * calling thread's last attempt, with the reason the lock type knows: how many
	 * RedLock nodes granted it, or how many replicas confirmed it when too few did
	 * ({@code redislock.min-replicas-acked}); otherwise that another owner holds it.
	 * @param waitTime how long the caller waited
	 * @return the exception to throw
	 * @since 0.1.0
	 */
	default LockAcquisitionException acquisitionFailure(Duration waitTime) {
		return new LockAcquisitionException(getName(), waitTime);
	}

}
