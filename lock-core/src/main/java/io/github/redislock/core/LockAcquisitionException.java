package io.github.redislock.core;

import java.time.Duration;

import io.github.redislock.support.Printable;
import org.jspecify.annotations.Nullable;

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
		this(lockName, waitTime, reason, null);
	}

	/**
	 * Create an exception that says why the lock was not acquired, with the failure
	 * behind it (a RedLock whose nodes did not answer, say).
	 * @param lockName the lock
	 * @param waitTime how long the caller waited
	 * @param reason why
	 * @param cause what failed, or {@code null}
	 * @since 0.1.0
	 */
	public LockAcquisitionException(String lockName, Duration waitTime, String reason, @Nullable Throwable cause) {
		super(lockName,
				"Failed to acquire lock '" + Printable.of(lockName) + "' within " + waitTime + ": " + reason
						+ ". Raise the wait time, or handle this case with onFailure = SKIP or a fallback method",
				cause);
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
		super(lockName, "Failed to acquire lock '" + Printable.of(lockName) + "' within " + waitTime + ": "
				+ whyUnanswered(cause), cause);
		this.waitTime = waitTime;
	}

	private static String whyUnanswered(Throwable cause) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(cause);
		String message = String.valueOf(root.getMessage());
		// NOPERM for a command the client sent; an ERR for one a script called (its text
		// differs by server). Checked here, not through the engine's AclRefusals: the API
		// does not depend on the engine.
		if (message.startsWith("NOPERM") || message.contains("ACL failure in script")
				|| message.contains("The user executing the script can't")) {
			return "Redis refused the call (" + root + "). The ACL user the application connects as lacks a"
					+ " command, key or channel the starter needs: grant it the rule of the README's"
					+ " \"Least-privilege ACL user\" section (ACL LOG on the server names what was refused)";
		}
		String hint = "";
		if (root instanceof javax.net.ssl.SSLException) {
			hint = "; the TLS handshake failed: check that spring.data.redis.ssl.bundle trusts the server's"
					+ " certificate and that the server speaks TLS on that port";
		}
		else if (message.contains("Connection initialization timed out")) {
			// A frozen or overloaded server, or a proxy that accepts without passing on,
			// looks just the same as a TLS mismatch: neither is named as the likelier.
			hint = "; the connection opened but its handshake got no answer: Redis is frozen or overloaded, something"
					+ " in between accepts connections without passing them on, or TLS is on one side only"
					+ " (spring.data.redis.ssl.enabled must match whether that port speaks TLS)";
		}
		else if (message.contains("Connection reset") || message.contains("closed prematurely")) {
			hint = "; the connection was closed as it opened (Redis restarting, or a proxy in between with no server"
					+ " behind it); if the server speaks TLS only, set spring.data.redis.ssl.enabled=true (with"
					+ " spring.data.redis.ssl.bundle naming a bundle that trusts its certificate)";
		}
		return "Redis is unreachable or did not answer (" + root + "). Check that Redis is up and spring.data.redis.*"
				+ " points at it" + hint + "; set spring.data.redis.timeout to bound how long one Redis call may block";
	}

	/**
	 * Return how long the caller waited for the lock.
	 * @return the wait time
	 */
	public Duration getWaitTime() {
		return this.waitTime;
	}

}
