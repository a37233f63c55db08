package io.github.redislock.core;

import org.jspecify.annotations.Nullable;

/**
 * Base of the unchecked exceptions the lock API throws; carries the name of the lock
 * concerned.
 *
 * @since 0.1.0
 */
public class LockException extends RuntimeException {

	private final String lockName;

	public LockException(String lockName, String message) {
		this(lockName, message, null);
	}

	public LockException(String lockName, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.lockName = lockName;
	}

	/**
	 * Return the full name of the lock concerned ({@code name:key}).
	 * @return the lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

}
