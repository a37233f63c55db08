package io.github.redislock.core;

/**
 * The kinds of lock, as metrics tag them ({@code type}: {@code exclusive}, {@code read},
 * {@code write}).
 *
 * @since 0.1.0
 */
public enum LockKind {

	EXCLUSIVE, READ, WRITE,

	/** A permit of a semaphore. */
	SEMAPHORE;

	/**
	 * Return the tag value.
	 * @return the lower-case name
	 */
	public String tag() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
