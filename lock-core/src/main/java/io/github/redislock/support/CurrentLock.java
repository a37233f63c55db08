package io.github.redislock.support;

/**
 * A hold as {@link io.github.redislock.core.LockContext} and
 * {@link io.github.redislock.core.ReactiveLockContext} see it: implemented by the
 * engine's holds.
 *
 * @since 0.1.0
 */
public interface CurrentLock {

	/**
	 * Return the full name of the held lock.
	 * @return the lock name
	 */
	String lockName();

	/**
	 * Return the hold's fencing token.
	 * @return the token
	 */
	long fencingToken();

	/**
	 * Return whether the lock is still held: {@code false} once it is known lost.
	 * @return whether it is held
	 */
	boolean isHeld();

	/**
	 * Return why the hold was lost, for a {@code LockLostException}; only meaningful once
	 * {@link #isHeld()} is {@code false}.
	 * @return the reason
	 */
	String lostReason();

}
