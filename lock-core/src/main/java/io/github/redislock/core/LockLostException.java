package io.github.redislock.core;

import io.github.redislock.support.Printable;

/**
 * Thrown when a lock was lost before its release: its lease ran out, or it was deleted or
 * taken by another owner. Work done under the lock may have overlapped with another
 * holder's; the lock's fencing token lets a resource refuse such late writes.
 *
 * @since 0.1.0
 */
public class LockLostException extends LockException {

	private final long fencingToken;

	public LockLostException(String lockName, long fencingToken, String reason) {
		super(lockName,
				"Lock '" + Printable.of(lockName) + "' (fencing token " + fencingToken + ") was lost before release: "
						+ reason + ". Another owner may have held it meanwhile; use a longer lease, or no fixed lease"
						+ " so that the watchdog renews it");
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the fencing token of the hold that was lost.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
