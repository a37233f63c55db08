package io.github.redislock.core;

import org.jspecify.annotations.Nullable;

/**
 * Work to run while a lock is held, for
 * {@link RedisLockTemplate#execute(String, java.time.Duration, java.time.Duration, LockCallback)}.
 *
 * @param <T> the result type
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockCallback<T extends @Nullable Object> {

	/**
	 * Run the work; the lock is held for the whole call.
	 * @return the result
	 * @throws Exception any failure of the work; checked ones reach the caller wrapped in
	 * {@link java.lang.reflect.UndeclaredThrowableException}
	 */
	T doWithLock() throws Exception;

}
