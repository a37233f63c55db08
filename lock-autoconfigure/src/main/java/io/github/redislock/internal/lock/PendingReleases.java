package io.github.redislock.internal.lock;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.internal.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Releases that failed (Redis did not answer, or answered with an error) and may not have
 * run: the hold they meant to end may still be in Redis, under an owner id that no thread
 * uses any more. They are sent again, owner-checked, before the next acquisition of the
 * same lock on this instance and on every watchdog tick, so such a stale hold does not
 * block everyone until its lease ends.
 */
final class PendingReleases {

	private static final Log logger = LogFactory.getLog(PendingReleases.class);

	private final Map<String, Pending> pending = new ConcurrentHashMap<>();

	void failed(AbstractRedisLock lock, String owner, long token, long holdAtLeastMillis) {
		this.pending.put(owner, new Pending(lock, owner, token, holdAtLeastMillis));
	}

	/**
	 * Send again the failed releases of one lock.
	 */
	void retry(String lockKey) {
		if (this.pending.isEmpty()) {
			return;
		}
		for (Pending release : this.pending.values()) {
			if (release.lock().key.equals(lockKey)) {
				retry(release);
			}
		}
	}

	/**
	 * Send again every failed release.
	 */
	void retryAll() {
		this.pending.values().forEach(this::retry);
	}

	private void retry(Pending release) {
		try {
			release.lock().tryRelease(release.owner(), release.token(), release.holdAtLeastMillis());
			// Released now, or gone already, or another owner's: nothing left to do.
			this.pending.remove(release.owner(), release);
		}
		catch (RuntimeException ex) {
			logger.debug("Release of an earlier hold of lock '" + Printable.of(release.lock().getName())
					+ "' failed again; retrying" + " later: " + ex);
		}
	}

	int size() {
		return this.pending.size();
	}

	private record Pending(AbstractRedisLock lock, String owner, long token, long holdAtLeastMillis) {
	}

}
