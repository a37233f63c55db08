package io.github.redislock.core;

/**
 * One permit of a {@link RedisSemaphore}, held until closed (or until its lease runs out:
 * then it is reported lost like a lock). Belongs to its holder, not to a thread: any
 * thread may close it. A {@link LockHandle} whose {@link #release()} is {@link #close()}.
 *
 * @since 0.1.0
 */
public interface SemaphorePermit extends AutoCloseable, LockHandle {

	/**
	 * Give the permit back; later calls do nothing. The same as {@link #release()}.
	 * @throws LockLostException when the permit had been lost before (unless
	 * {@code redislock.on-lock-lost=log})
	 */
	@Override
	default void close() {
		release();
	}

	/**
	 * Return whether the permit is still held: {@code false} once closed or known lost.
	 * @return whether it is held
	 */
	boolean isHeld();

	/**
	 * Return the permit's token: strictly increasing per semaphore across all holders.
	 * @return the token
	 */
	long fencingToken();

}
