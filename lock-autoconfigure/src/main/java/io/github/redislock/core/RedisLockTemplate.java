package io.github.redislock.core;

import java.time.Duration;

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

}
