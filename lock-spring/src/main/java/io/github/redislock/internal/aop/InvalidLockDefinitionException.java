package io.github.redislock.internal.aop;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at start-up when a lock annotation cannot work: a malformed or unsafe
 * expression, a bad duration, a missing fallback. The message names the method and the
 * offending text.
 *
 * @since 0.1.0
 */
public class InvalidLockDefinitionException extends IllegalStateException {

	private final String action;

	public InvalidLockDefinitionException(String message, String action) {
		this(message, action, null);
	}

	public InvalidLockDefinitionException(String message, String action, @Nullable Throwable cause) {
		super(message, cause);
		this.action = action;
	}

	/**
	 * Return what to do about it.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
