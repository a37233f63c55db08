package io.github.redislock.core;

import org.springframework.context.ApplicationEvent;

/**
 * Published to the application context when a lock held by this instance is lost: a
 * renewal found it gone or taken, its lease ran out before a renewal succeeded, or its
 * release found it no longer ours.
 *
 * @since 0.1.0
 */
public class LockLostEvent extends ApplicationEvent {

	private final String lockName;

	private final long fencingToken;

	public LockLostEvent(Object source, String lockName, long fencingToken) {
		super(source);
		this.lockName = lockName;
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the full name of the lost lock ({@code name:key}).
	 * @return the lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * Return the fencing token of the hold that was lost.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
