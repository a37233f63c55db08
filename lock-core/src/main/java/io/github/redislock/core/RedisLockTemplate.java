package io.github.redislock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Entry point to the distributed locks: hands out locks by name and runs work under them.
 * <pre class="code">
 * Receipt receipt = locks.execute("orders:" + id, Duration.ofSeconds(3), null, () -&gt; pay(id));
 * </pre>
 *
 * @since 0.1.0
 */
public interface RedisLockTemplate {

	/**
	 * Return the exclusive lock of the given name: reentrant, owned by the calling
	 * thread. Cheap: the lock's state lives in Redis and in this template, not in the
	 * returned object, so calling this on every use is fine.
	 * @param name the full lock name
	 * @return the lock
	 */
	RedisLock getLock(String name);

	/**
	 * Return the read-write lock of the given name: shared readers or one writer, both
	 * sides reentrant and owned by the calling thread. Its keys differ from those of
	 * {@link #getLock(String) the exclusive lock} of the same name.
	 * @param name the full lock name
	 * @return the read-write lock
	 */
	RedisReadWriteLock getReadWriteLock(String name);

	/**
	 * Return the semaphore of the given name with {@code permits} permits (this caller's
	 * count; see {@link RedisSemaphore}). Cheap, like {@link #getLock(String)}.
	 * @param name the full semaphore name
	 * @param permits how many holders at once, at least 1
	 * @return the semaphore
	 */
	RedisSemaphore getSemaphore(String name, int permits);

	/**
	 * Run {@code action} while holding the named lock.
	 * @param <T> the result type
	 * @param name the full lock name
	 * @param waitTime how long to wait for the lock
	 * @param leaseTime fixed lease, or {@code null} for a watchdog-renewed lease
	 * @param action the work
	 * @return the action's result
	 * @throws LockAcquisitionException when the lock is not acquired within
	 * {@code waitTime}
	 * @throws LockLostException when the lock was lost before its release (unless
	 * {@code redislock.on-lock-lost=log})
	 */
	<T extends @Nullable Object> T execute(String name, Duration waitTime, @Nullable Duration leaseTime,
			LockCallback<T> action);

	/**
	 * Run asynchronous work while holding the named lock, without blocking a thread while
	 * waiting: the lock is acquired first, then {@code action} is called (on one of the
	 * template's callback threads) and the lock is released when the stage it returns
	 * completes, normally or not; the returned future completes after that release.
	 * <p>
	 * The hold belongs to this call, not to a thread: it is not re-entrant (locking the
	 * same name again inside the work waits like any other owner), and it is released
	 * from whichever thread completes the work. Inside the synchronous part of
	 * {@code action}, {@link LockContext} describes the hold; later stages run without it
	 * (capture {@link LockContext#fencingToken()} there if they need it).
	 * @param <T> the result type
	 * @param name the full lock name
	 * @param waitTime how long to wait for the lock
	 * @param leaseTime fixed lease, or {@code null} for a watchdog-renewed lease
	 * @param action starts the work
	 * @return the work's result; fails with {@link LockAcquisitionException} when the
	 * lock is not acquired within {@code waitTime}, and with {@link LockLostException}
	 * when it was lost before its release (unless {@code redislock.on-lock-lost=log})
	 * @see #executeAsync(String, Duration, Duration, Duration, Supplier)
	 */
	<T extends @Nullable Object> CompletableFuture<T> executeAsync(String name, Duration waitTime,
			@Nullable Duration leaseTime, Supplier<? extends CompletionStage<T>> action);

	/**
	 * Run asynchronous work while holding the named lock, as
	 * {@link #executeAsync(String, Duration, Duration, Supplier)} does, with a minimum
	 * hold: after the work completes (normally or not) the lock stays taken until at
	 * least {@code holdAtLeast} after it was acquired, timed by Redis (see
	 * {@link RedisLock#withHoldAtLeast}).
	 * <p>
	 * The default takes the hold through {@link RedisLock#tryAcquireAsync} of
	 * {@code getLock(name).withHoldAtLeast(holdAtLeast)}, and without a minimum hold
	 * calls {@link #executeAsync(String, Duration, Duration, Supplier)}.
	 * @param <T> the result type
	 * @param name the full lock name
	 * @param waitTime how long to wait for the lock
	 * @param leaseTime fixed lease, or {@code null} for a watchdog-renewed lease
	 * @param holdAtLeast the minimum time from acquisition to release; {@code null} or
	 * zero for none
	 * @param action starts the work
	 * @return the work's result, as for
	 * {@link #executeAsync(String, Duration, Duration, Supplier)}
	 * @since 0.1.0
	 */
	default <T extends @Nullable Object> CompletableFuture<T> executeAsync(String name, Duration waitTime,
			@Nullable Duration leaseTime, @Nullable Duration holdAtLeast,
			Supplier<? extends CompletionStage<T>> action) {
		if (holdAtLeast == null || holdAtLeast.isZero()) {
			return executeAsync(name, waitTime, leaseTime, action);
		}
		RedisLock lock = getLock(name).withHoldAtLeast(holdAtLeast);
		return lock.tryAcquireAsync(waitTime, leaseTime)
			.thenCompose((handle) -> HandleWork.whileHeld(handle.orElseThrow(() -> lock.acquisitionFailure(waitTime)),
					action));
	}

	/**
	 * Take the named lock for a hold that no thread owns, waiting for it on the calling
	 * thread. The hold belongs to the returned {@link LockHandle}, not to the thread: any
	 * thread may {@linkplain LockHandle#extend extend} and
	 * {@linkplain LockHandle#release() release} it, and it is not re-entrant (the calling
	 * thread does not hold the lock; taking it again, by any thread or handle, waits like
	 * any other owner). Its {@linkplain LockHandle#fencingToken() fencing token} is
	 * issued like any other. What a bridge to another locking API needs to hold a lock
	 * across calls that may come from other threads. <pre class="code">
	 * Optional&lt;LockHandle&gt; held = locks.tryAcquire("reports", Duration.ZERO, Duration.ofMinutes(10), Duration.ofMinutes(1));
	 * </pre>
	 * <p>
	 * The default waits for {@link RedisLock#tryAcquireAsync} of
	 * {@code getLock(name).withHoldAtLeast(holdAtLeast)}.
	 * @param name the full lock name
	 * @param waitTime how long to wait; {@link Duration#ZERO} for one attempt
	 * @param leaseTime fixed lease after which the lock expires even while held, or
	 * {@code null} for the default lease renewed by the watchdog (until the hold is
	 * extended)
	 * @param holdAtLeast after its release the lock stays taken until at least this long
	 * after it was acquired (or last extended), timed by Redis; {@code null} or zero for
	 * none
	 * @return the hold, or empty when the lock was not acquired within {@code waitTime},
	 * or when the calling thread was interrupted (its interrupt status is then set, and
	 * nothing is left taken)
	 * @throws LockAcquisitionException when Redis could not be reached within
	 * {@code waitTime}
	 * @throws UnsupportedOperationException when the template's locks take no holds
	 * without a thread
	 * @since 0.1.0
	 */
	default Optional<LockHandle> tryAcquire(String name, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable Duration holdAtLeast) {
		RedisLock lock = getLock(name);
		if (holdAtLeast != null && !holdAtLeast.isZero()) {
			lock = lock.withHoldAtLeast(holdAtLeast);
		}
		if (Thread.currentThread().isInterrupted()) {
			return Optional.empty();
		}
		CompletableFuture<Optional<LockHandle>> acquisition = lock.tryAcquireAsync(waitTime, leaseTime);
		try {
			return acquisition.get();
		}
		catch (InterruptedException ex) {
			// Given up: a hold that came at this very moment goes back at once.
			if (!acquisition.cancel(false) && !acquisition.isCompletedExceptionally()) {
				acquisition.getNow(Optional.empty()).ifPresent(LockHandle::releaseAsync);
			}
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new CompletionException(cause);
		}
	}

}
