package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockKind;
import org.jspecify.annotations.Nullable;
import io.github.redislock.support.CurrentLock;

/**
 * One thread's hold on one lock, as this instance knows it: hold count, fencing token,
 * and the local deadline after which the lease may have run out.
 * <p>
 * The deadline runs on the monotonic clock from the moment the acquire (or the last
 * successful renewal or extension) was <em>sent</em>, so it never ends later than the
 * lease in Redis. An extension fixes the lease: the watchdog renews the hold no more.
 */
final class LockHold implements CurrentLock {

	private final String name;

	private final String key;

	private final String owner;

	private final long threadId;

	private final long token;

	/** Whether the watchdog renews it: taken without a fixed lease, and not extended. */
	private volatile boolean watchdog;

	/** Whether its holder extended it (last to {@link #leaseNanos}, when that worked). */
	private volatile boolean extended;

	/**
	 * The lease it was granted with, or last extended to (for a fixed lease, all it ever
	 * has).
	 */
	private volatile long leaseNanos;

	private final long acquiredNanos;

	private final LockKind kind;

	private final String metricName;

	/** Only the owning thread changes it. */
	private int count = 1;

	/**
	 * How long after acquisition the lock stays taken (0: released at the last unlock);
	 * after an extension that replaced it, how long after that extension (which Redis
	 * recorded as the hold's at-least deadline).
	 */
	private volatile long holdAtLeastMillis;

	/** How long the watchdog renews it (0: for as long as it is held). */
	private final long maxHoldNanos;

	private volatile long deadlineNanos;

	/** Set once, under this hold's monitor; read without it (volatile). */
	private volatile @Nullable String lostReason;

	/**
	 * The thread that took the hold, the one to interrupt when it is lost; {@code null}
	 * for an asynchronous hold, which belongs to its call, not to a thread.
	 */
	private volatile @Nullable Thread thread;

	/** Set when the last release began. */
	@GuardedBy("this")
	private boolean released;

	/**
	 * Guarded by this: set once a thread taking this lost hold's lock again gave it back
	 * in Redis, owner-checked, before its fresh attempt.
	 */
	private boolean abandoned;

	/**
	 * Extensions of this hold take turns (a handle may be extended from any thread); made
	 * by the first, so that holds never extended (most of them) do not carry one.
	 */
	private volatile @Nullable ReentrantLock extending;

	LockHold(String name, String key, String owner, long threadId, long token, boolean watchdog, long sentNanos,
			long leaseNanos, LockKind kind, String metricName, HoldBounds bounds) {
		this(name, key, owner, threadId, token, watchdog, sentNanos, leaseNanos, kind, metricName, bounds,
				Thread.currentThread());
	}

	LockHold(String name, String key, String owner, long threadId, long token, boolean watchdog, long sentNanos,
			long leaseNanos, LockKind kind, String metricName, HoldBounds bounds, @Nullable Thread thread) {
		this.thread = thread;
		this.holdAtLeastMillis = bounds.holdAtLeastMillis();
		this.maxHoldNanos = TimeUnit.MILLISECONDS.toNanos(bounds.maxHoldMillis());
		this.kind = kind;
		this.metricName = metricName;
		this.name = name;
		this.key = key;
		this.owner = owner;
		this.threadId = threadId;
		this.token = token;
		this.watchdog = watchdog;
		this.acquiredNanos = sentNanos;
		this.deadlineNanos = sentNanos + leaseNanos;
		this.leaseNanos = leaseNanos;
	}

	String name() {
		return this.name;
	}

	LockKind kind() {
		return this.kind;
	}

	String metricName() {
		return this.metricName;
	}

	String key() {
		return this.key;
	}

	String owner() {
		return this.owner;
	}

	long threadId() {
		return this.threadId;
	}

	@Override
	public String lockName() {
		return this.name;
	}

	@Override
	public long fencingToken() {
		return this.token;
	}

	long token() {
		return this.token;
	}

	boolean watchdog() {
		return this.watchdog;
	}

	int count() {
		return this.count;
	}

	long acquiredNanos() {
		return this.acquiredNanos;
	}

	/**
	 * Count one more hold by the owning thread, unless the hold is lost (or past its
	 * deadline).
	 * @return whether it was re-entered
	 */
	boolean reenter(HoldBounds bounds) {
		if (!isHeld()) {
			return false;
		}
		this.count++;
		// A nested call asking for a longer hold-at-least gets it; the time still counts
		// from the first acquisition.
		if (bounds.holdAtLeastMillis() > this.holdAtLeastMillis) {
			this.holdAtLeastMillis = bounds.holdAtLeastMillis();
		}
		return true;
	}

	/**
	 * Take over the outstanding holds of the lost hold this one replaces (taken afresh by
	 * the same thread): each of them still needs its unlock, and the longer hold-at-least
	 * applies, counted from this hold's acquisition.
	 */
	void absorb(LockHold lost) {
		this.count += lost.count;
		if (lost.holdAtLeastMillis > this.holdAtLeastMillis) {
			this.holdAtLeastMillis = lost.holdAtLeastMillis;
		}
	}

	long holdAtLeastMillis() {
		return this.holdAtLeastMillis;
	}

	/**
	 * An extension replaced the hold-at-least: Redis recorded the new one counted from
	 * the extension (none for 0), and the one counted from the fencing token is no longer
	 * wanted. The releases send this value, whose remainder from the token ends before
	 * the recorded deadline, so that deadline decides.
	 */
	void replaceHoldAtLeast(long millis) {
		this.holdAtLeastMillis = millis;
	}

	/**
	 * Whether the watchdog renews this hold now: a watchdog hold that has not reached its
	 * maximum hold time and is not known lost (nor released at shutdown: renewing it
	 * would stretch what was given back, or kept only for its hold-at-least, to a whole
	 * lease again).
	 */
	boolean renewable() {
		return this.watchdog && this.lostReason == null && !maxHoldReached();
	}

	boolean maxHoldReached() {
		return this.maxHoldNanos > 0 && System.nanoTime() - this.acquiredNanos >= this.maxHoldNanos;
	}

	/**
	 * Drop one hold.
	 * @return the holds left
	 */
	int exit() {
		return --this.count;
	}

	/**
	 * Whether this instance still believes the lock is held: not found lost, and the
	 * local deadline not passed.
	 */
	@Override
	public boolean isHeld() {
		return this.lostReason == null && System.nanoTime() - this.deadlineNanos < 0;
	}

	/**
	 * A renewal sent at {@code sentNanos} reached Redis: the deadline moves, unless the
	 * hold was lost or extended to a fixed lease since (a renewal that was on its way
	 * then says nothing about the extended lease).
	 */
	synchronized void renewed(long sentNanos, long leaseNanos) {
		if (this.lostReason == null && this.watchdog) {
			this.deadlineNanos = sentNanos + leaseNanos;
		}
	}

	/**
	 * An extension is about to be sent: from now on the lease is the holder's, and the
	 * watchdog leaves the hold alone (also the answers of renewals on their way).
	 */
	synchronized void fixLease() {
		this.watchdog = false;
		this.extended = true;
	}

	/**
	 * An extension sent at {@code sentNanos} reached Redis: the deadline is that lease
	 * from then, earlier or later than before.
	 */
	synchronized void extended(long sentNanos, long leaseNanos) {
		if (this.lostReason == null) {
			this.leaseNanos = leaseNanos;
			this.deadlineNanos = sentNanos + leaseNanos;
		}
	}

	/**
	 * Return the lock that extensions of this hold take in turn.
	 */
	ReentrantLock extending() {
		ReentrantLock extending = this.extending;
		if (extending == null) {
			synchronized (this) {
				extending = this.extending;
				if (extending == null) {
					extending = new ReentrantLock();
					this.extending = extending;
				}
			}
		}
		return extending;
	}

	HeldLock describe() {
		long now = System.nanoTime();
		Duration left = isHeld() ? Duration.ofNanos(this.deadlineNanos - now) : Duration.ZERO;
		return new HeldLock(this.name, this.kind.tag(), Duration.ofNanos(now - this.acquiredNanos), left, this.token,
				this.count);
	}

	boolean deadlinePassed() {
		return System.nanoTime() - this.deadlineNanos >= 0;
	}

	/**
	 * Mark the hold lost.
	 * @return whether this call marked it (false when it was already lost)
	 */
	synchronized boolean markLost(String reason) {
		if (this.lostReason != null) {
			return false;
		}
		this.lostReason = reason;
		return true;
	}

	/**
	 * The hold now belongs to an asynchronous call rather than to the thread that took
	 * it: that thread is never interrupted for its loss.
	 */
	void detachFromThread() {
		this.thread = null;
	}

	/**
	 * The last release of this hold begins: the holding thread is no longer interrupted
	 * for its loss.
	 */
	synchronized void releasing() {
		this.released = true;
	}

	/**
	 * Whether the last release of this hold began.
	 */
	synchronized boolean isReleased() {
		return this.released;
	}

	/**
	 * This lost hold is given back in Redis before its thread takes the lock afresh.
	 * @return whether this call marked it (false when it was given back already)
	 */
	synchronized boolean abandon() {
		if (this.abandoned) {
			return false;
		}
		this.abandoned = true;
		return true;
	}

	/**
	 * Whether this lost hold was given back in Redis already (see {@link #abandon()}):
	 * its last unlock has nothing left to release.
	 */
	synchronized boolean abandoned() {
		return this.abandoned;
	}

	/**
	 * Interrupt the holding thread, unless it is already releasing the hold.
	 */
	synchronized void interruptHolder() {
		Thread thread = this.thread;
		if (!this.released && thread != null) {
			thread.interrupt();
		}
	}

	@Override
	public String lostReason() {
		String reason = this.lostReason;
		return (reason != null) ? reason : expiryReason();
	}

	/**
	 * Why the lease ran out: a fixed lease (never renewed) ended, the watchdog stopped at
	 * the maximum hold time, or no renewal reached Redis in time.
	 */
	String expiryReason() {
		if (this.extended) {
			return "its lease, extended to " + Duration.ofNanos(this.leaseNanos)
					+ ", ran out while it was held (an extended lease is fixed: the watchdog no longer renews it;"
					+ " extend it again before it ends)";
		}
		if (!this.watchdog) {
			return "its fixed lease of " + Duration.ofNanos(this.leaseNanos)
					+ " ran out while it was held (a fixed lease, leaseTime, is never renewed: make it longer than"
					+ " the work, or leave leaseTime out so that the watchdog renews the lock)";
		}
		if (maxHoldReached()) {
			return "it reached its maxHold of " + Duration.ofNanos(this.maxHoldNanos)
					+ ", so the watchdog stopped renewing it and its lease ran out";
		}
		return "its lease ran out before a renewal reached Redis";
	}

}
