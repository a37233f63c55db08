package io.github.redislock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
	 */
	<T extends @Nullable Object> CompletableFuture<T> executeAsync(String name, Duration waitTime,
			@Nullable Duration leaseTime, Supplier<? extends CompletionStage<T>> action);

}
