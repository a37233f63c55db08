package io.github.redislock.core;

/**
 * What the release of a lock that was lost while held does.
 *
 * @since 0.1.0
 */
public enum OnLockLost {

	/**
	 * Throw {@link LockLostException} from the release (after the work ran).
	 */
	THROW,

	/**
	 * Log a warning and return normally.
	 */
	LOG

}
