package io.github.redislock.internal.lock;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.support.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Releases that failed (Redis did not answer, or answered with an error) and may not have
 * run: the hold they meant to end may still be in Redis, under an owner id that no thread
 * uses any more. They are sent again, owner-checked, before the next acquisition of the
 * same lock on this instance and on every watchdog tick (without waiting for the answer,
 * so a node that does not answer delays no renewal), so such a stale hold does not block
 * everyone until its lease ends. Each answered retry wakes this instance's waiters of the
 * lock.
 */
final class PendingReleases {

	private static final Log logger = LogFactory.getLog(PendingReleases.class);

	private final Map<String, Pending> pending = new ConcurrentHashMap<>();

	void failed(AbstractRedisLock lock, String owner, long token, long holdAtLeastMillis) {
		this.pending.put(owner, new Pending(lock, owner, token, holdAtLeastMillis, new AtomicBoolean()));
	}

	/**
	 * Send again the failed releases of one lock, waiting for the answers (on the thread
	 * that is about to acquire it).
	 */
	void retry(String lockKey) {
		if (this.pending.isEmpty()) {
			return;
		}
		for (Pending release : this.pending.values()) {
			if (release.lock().key.equals(lockKey)) {
				try {
					release.lock().tryRelease(release.owner(), release.token(), release.holdAtLeastMillis());
					settled(release);
				}
				catch (RuntimeException ex) {
					failedAgain(release, ex);
				}
			}
		}
	}

	/**
	 * Send again every failed release that is not on its way already, without waiting for
	 * the answers.
	 */
	void retryAll() {
		for (Pending release : this.pending.values()) {
			if (!release.sending().compareAndSet(false, true)) {
				continue;
			}
			CompletableFuture<Long> answer;
			try {
				answer = release.lock().template.commands()
					.callAsync(
							release.lock().releaseCall(release.owner(), release.token(), release.holdAtLeastMillis()));
			}
			catch (RuntimeException ex) {
				answer = CompletableFuture.failedFuture(ex);
			}
			answer.whenComplete((result, ex) -> {
				release.sending().set(false);
				if (ex != null) {
					failedAgain(release, ex);
				}
				else {
					settled(release);
				}
			});
		}
	}

	private void settled(Pending release) {
		// Released now, or gone already, or another owner's: nothing left to do.
		if (this.pending.remove(release.owner(), release) && this.pending.values()
			.stream()
			.noneMatch((other) -> other.lock().signalKey.equals(release.lock().signalKey))) {
			release.lock().template.signals().settled(release.lock().signalKey);
		}
		release.lock().wakeLocalWaiters();
	}

	private static void failedAgain(Pending release, Throwable ex) {
		logger.debug("Release of an earlier hold of lock '" + Printable.of(release.lock().getName())
				+ "' failed again; retrying later: " + ex);
	}

	int size() {
		return this.pending.size();
	}

	private record Pending(AbstractRedisLock lock, String owner, long token, long holdAtLeastMillis,
			AtomicBoolean sending) {
	}

}
