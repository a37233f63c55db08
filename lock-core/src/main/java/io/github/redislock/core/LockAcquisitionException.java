package io.github.redislock.core;

import java.time.Duration;

import io.github.redislock.support.Printable;

import org.springframework.core.NestedExceptionUtils;

/**
 * Thrown when a lock is not acquired within its wait time.
 *
 * @since 0.1.0
 */
public class LockAcquisitionException extends LockException {

	private final Duration waitTime;

	public LockAcquisitionException(String lockName, Duration waitTime) {
		this(lockName, waitTime, "another owner holds it");
	}

	/**
	 * Create an exception that says why the lock was not acquired.
	 * @param lockName the lock
	 * @param waitTime how long the caller waited
	 * @param reason why, e.g. "another owner holds it"
	 */
	public LockAcquisitionException(String lockName, Duration waitTime, String reason) {
		super(lockName, "Failed to acquire lock '" + Printable.of(lockName) + "' within " + waitTime + ": " + reason
				+ ". Raise the wait time, or handle this case with onFailure = SKIP or a fallback method");
		this.waitTime = waitTime;
	}

	/**
	 * Create an exception for a lock that could not be asked for: Redis did not answer
	 * within the wait time.
	 * @param lockName the lock
	 * @param waitTime how long the caller tried
	 * @param cause the last failure talking to Redis
	 */
	public LockAcquisitionException(String lockName, Duration waitTime, Throwable cause) {
		super(lockName, "Failed to acquire lock '" + Printable.of(lockName) + "' within " + waitTime
				+ ": Redis is unreachable or did not answer (" + NestedExceptionUtils.getMostSpecificCause(cause)
				+ "). Check that Redis is up and spring.data.redis.* points at it; set spring.data.redis.timeout"
				+ " to bound how long one Redis call may block", cause);
		this.waitTime = waitTime;
	}

	/**
	 * Return how long the caller waited for the lock.
	 * @return the wait time
	 */
	public Duration getWaitTime() {
		return this.waitTime;
	}

}
