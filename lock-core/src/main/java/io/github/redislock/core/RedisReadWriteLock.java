package io.github.redislock.core;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed {@link ReadWriteLock} on Redis: any number of readers across all
 * instances, or one writer. Both sides are reentrant {@link RedisLock}s owned by the
 * calling thread.
 *
 * @since 0.1.0
 */
public interface RedisReadWriteLock extends ReadWriteLock {

	/**
	 * Return the read side, shared among readers.
	 * @return the read lock
	 */
	@Override
	RedisLock readLock();

	/**
	 * Return the write side, exclusive of readers and other writers.
	 * @return the write lock
	 */
	@Override
	RedisLock writeLock();

}
