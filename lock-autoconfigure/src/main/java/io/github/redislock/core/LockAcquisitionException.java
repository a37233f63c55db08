package io.github.redislock.core;

import java.time.Duration;

/**
 * Thrown when a lock is not acquired within its wait time.
 */
public class LockAcquisitionException extends LockException {

	private final Duration waitTime;

	public LockAcquisitionException(String lockName, Duration waitTime) {
		super(lockName,
				"Failed to acquire lock '" + lockName + "' within " + waitTime
						+ ": another owner holds it. Raise the wait time, or handle this case with"
						+ " onFailure = SKIP or a fallback method");
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
