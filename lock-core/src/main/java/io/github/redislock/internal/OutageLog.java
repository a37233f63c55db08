package io.github.redislock.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.apache.commons.logging.Log;

/**
 * The log lines of a part of the starter that calls Redis again and again (the queue
 * workers, the lock watchdog, the release channel): one WARN when its calls start to
 * fail, one INFO when all of them succeed again, and the failures in between at DEBUG. An
 * outage of Redis so yields two lines, not one per poll interval and queue.
 * <p>
 * Each kind of call (a queue's claims, its renewals, a subscription) reports under a key
 * of its own: the outage starts with the first key that fails and ends when the last
 * failing key succeeds, so a call that still succeeds while another fails (a Cluster with
 * one node down) does not end it early. Internal: not part of the starter's API.
 *
 * @since 0.1.0
 */
public final class OutageLog {

	private final Log logger;

	private final String who;

	/** Changed under {@link #lock}; read without it (a concurrent set). */
	private final Set<String> failing = ConcurrentHashMap.newKeySet();

	/** Guards the start and the end of an outage. */
	private final Object lock = new Object();

	@GuardedBy("lock")
	private long startNanos;

	@GuardedBy("lock")
	private long failures;

	/** When the last outage ended (nanoTime). */
	@GuardedBy("lock")
	private long endNanos = System.nanoTime() - Long.MAX_VALUE / 2;

	/**
	 * @param logger where to log
	 * @param who what calls Redis, as the subject of the log lines ("The task queue
	 * workers")
	 */
	public OutageLog(Log logger, String who) {
		this.logger = logger;
		this.who = who;
	}

	/**
	 * A call failed: the first failure of an outage is logged at WARN, the others at
	 * DEBUG.
	 * @param key the kind of call (e.g. {@code "claim:orders"})
	 * @param what what could not be done, for the log line ("could not take tasks of
	 * queue 'orders'")
	 * @param failure why
	 */
	public void failed(String key, String what, Throwable failure) {
		failed(key, what, failure, System.nanoTime());
	}

	/**
	 * A call failed, as {@link #failed(String, String, Throwable)}; one sent before the
	 * last outage ended belongs to that outage (its failure came late: a command timed
	 * out after Redis was back) and is logged at DEBUG only.
	 * @param key the kind of call
	 * @param what what could not be done
	 * @param failure why
	 * @param sentNanos when the call was sent ({@link System#nanoTime()})
	 */
	public void failed(String key, String what, Throwable failure, long sentNanos) {
		boolean first;
		synchronized (this.lock) {
			if (this.failing.isEmpty() && sentNanos - this.endNanos < 0) {
				if (this.logger.isDebugEnabled()) {
					this.logger.debug(what + " (sent during the last outage): " + failure);
				}
				return;
			}
			first = this.failing.isEmpty();
			this.failing.add(key);
			this.failures++;
			if (first) {
				this.startNanos = System.nanoTime();
			}
		}
		if (first) {
			this.logger.warn(this.who + " cannot use Redis: " + what + ": " + failure
					+ ". They keep trying; logged once until Redis answers again (each failure at DEBUG)");
		}
		else if (this.logger.isDebugEnabled()) {
			this.logger.debug(what + ": " + failure);
		}
	}

	/**
	 * A call succeeded: when it was the last kind of call still failing, the outage
	 * ended, logged at INFO.
	 * @param key the kind of call
	 */
	public void succeeded(String key) {
		if (this.failing.isEmpty()) {
			return;
		}
		long failed;
		long lasted;
		synchronized (this.lock) {
			if (!this.failing.remove(key) || !this.failing.isEmpty()) {
				return;
			}
			failed = this.failures;
			this.endNanos = System.nanoTime();
			lasted = this.endNanos - this.startNanos;
			this.failures = 0;
		}
		this.logger.info(this.who + ": Redis answers again, after " + Duration.ofMillis(lasted / 1_000_000) + " and "
				+ failed + " failed call(s)");
	}

	/**
	 * Return whether a kind of call is failing now.
	 * @param key the kind of call
	 * @return whether its last call failed
	 */
	public boolean isFailing(String key) {
		return this.failing.contains(key);
	}

	/**
	 * Return whether some kind of call is failing now.
	 * @return whether an outage is under way
	 */
	public boolean isFailing() {
		return !this.failing.isEmpty();
	}

}
