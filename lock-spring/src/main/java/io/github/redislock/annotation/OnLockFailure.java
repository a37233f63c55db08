package io.github.redislock.annotation;

/**
 * What an annotated method does when its lock is not acquired within the wait time.
 *
 * @see DistributedLock#onFailure()
 * @since 0.1.0
 */
public enum OnLockFailure {

	/**
	 * Raise {@link io.github.redislock.core.LockAcquisitionException}.
	 */
	THROW,

	/**
	 * Do not run the method; return {@code null}, {@code Optional.empty()}, or {@code 0}
	 * / {@code false} for primitives.
	 */
	SKIP

}
