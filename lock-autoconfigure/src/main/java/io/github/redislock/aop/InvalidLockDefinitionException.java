package io.github.redislock.aop;

/**
 * Thrown at start-up when a lock annotation cannot work: a malformed or unsafe
 * expression, a bad duration, a missing fallback. The message names the method and the
 * offending text.
 */
public class InvalidLockDefinitionException extends IllegalStateException {

	private final String action;

	public InvalidLockDefinitionException(String message, String action) {
		this(message, action, null);
	}

	public InvalidLockDefinitionException(String message, String action, Throwable cause) {
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
