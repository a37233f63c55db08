package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockKind;
import io.github.redislock.core.LockObserver;
import io.github.redislock.internal.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.util.ClassUtils;

/**
 * Base of the {@link RedisLock} types: local re-entry, the acquire-or-wait loop, release
 * and loss reporting. Subclasses supply the scripts.
 * <p>
 * Acquiring and releasing are one script call each; re-entry by the holding thread is
 * counted locally and costs no round trip, so a command re-sent after a reconnect can
 * never count a hold twice. A thread that finds the lock taken parks until a release
 * message wakes it, or until the obstacle's lease would have run out.
 */
abstract class AbstractRedisLock extends ThreadOwnedLock {

	private static final Log logger = LogFactory.getLog(AbstractRedisLock.class);

	/**
	 * Lettuce's exception for a command whose caller was interrupted; resolved by name so
	 * that applications on another client do not need Lettuce.
	 */
	private static final @Nullable Class<?> LETTUCE_INTERRUPTED = ClassUtils
		.isPresent("io.lettuce.core.RedisCommandInterruptedException", AbstractRedisLock.class.getClassLoader())
				? ClassUtils.resolveClassName("io.lettuce.core.RedisCommandInterruptedException",
						AbstractRedisLock.class.getClassLoader())
				: null;

	protected final DefaultRedisLockTemplate template;

	/** Key that waiters wait on and release messages name. */
	protected final String signalKey;

	AbstractRedisLock(DefaultRedisLockTemplate template, String name, String key, String signalKey, HoldBounds bounds) {
		super(name, key, bounds);
		this.template = template;
		this.signalKey = signalKey;
	}

	@Override
	HoldRegistry holds() {
		return this.template.holds();
	}

	/**
	 * A failed attempt's result at or below minus this means: the lock is free but
	 * reserved for a waiting writer; the rest is the reservation's remaining ms.
	 */
	static final long RESERVED_FOR_WRITER = 1L << 40;

	private static final long CONNECTION_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	/**
	 * Try once to take the lock.
	 * @return the fencing token when acquired, otherwise minus the milliseconds after
	 * which the obstacle's lease runs out (see {@link #RESERVED_FOR_WRITER})
	 */
	abstract long tryAcquire(String owner, long leaseMillis, boolean willWait, boolean othersWait);

	/**
	 * Release the lock if {@code owner} holds it.
	 * @param token the hold's fencing token, or 0 when unknown (undoing an acquire whose
	 * answer never came)
	 * @param holdAtLeastMillis keep the hold until this long after the token was issued
	 * instead of deleting it (0: delete now)
	 * @return 1 released (also when this is a re-sent run of a release that already
	 * released it), 0 the hold was gone, -1 another owner holds it
	 */
	abstract long tryRelease(String owner, long token, long holdAtLeastMillis);

	/**
	 * Return the kind of lock, for metrics.
	 */
	abstract LockKind kind();

	/**
	 * Checks before the calling thread, which does not hold this lock yet, acquires it.
	 */
	void checkAcquire(long threadId) {
	}

	/**
	 * Called when a thread that waited gives up without the lock.
	 */
	void gaveUp(String owner) {
	}

	/**
	 * Whether an acquisition should wake the next waiting thread of this instance, which
	 * may be able to hold the lock at the same time.
	 */
	boolean sharesWithWaiters() {
		return false;
	}

	String releaseMessage() {
		return this.template.signals().releaseMessage(this.signalKey);
	}

	@Override
	boolean acquireNew(long threadId, long waitNanos, @Nullable Duration leaseTime, boolean interruptible)
			throws InterruptedException {
		checkAcquire(threadId);
		if (interruptible && Thread.interrupted()) {
			throw new InterruptedException();
		}
		this.template.pendingReleases().retry(this.key);
		String owner = this.template.ownerId(threadId);
		long leaseMillis = (leaseTime != null) ? leaseTime.toMillis() : this.template.leaseMillis();
		String metricName = LockMetricNames.of(this.name, this.template.metricNames());
		LockObserver observer = this.template.observer();
		long start = System.nanoTime();
		boolean failed = true;
		ReleaseSignals signals = this.template.signals();
		ReleaseSignals.Waiter waiter = null;
		boolean acquired = false;
		boolean interrupted = false;
		// Whether an attempt may have left a sign that this caller waits (a writer's
		// marker): then giving up must remove it, also when the first attempt was the
		// last.
		boolean announcedWaiting = false;
		try {
			while (true) {
				long remaining = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
				long sent = System.nanoTime();
				long result;
				announcedWaiting |= remaining > 0;
				try {
					result = tryAcquire(owner, leaseMillis, remaining > 0, signals.hasWaiters(this.signalKey, waiter));
				}
				catch (RuntimeException ex) {
					if (!interruptedDuring(ex)) {
						long left = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
						if (!(ex instanceof DataAccessException)) {
							throw ex;
						}
						if (left <= 0) {
							throw unreachable(owner, waitNanos, ex);
						}
						// Redis unreachable for now (a failover, say): a waiting
						// caller keeps trying within its wait time; the last
						// failure is reported as it is.
						try {
							pause(Math.min(left, CONNECTION_RETRY_NANOS), interruptible);
						}
						catch (InterruptedException interrupt) {
							// The failed attempt may have reached Redis: undo it first.
							undo(owner, interrupt);
							throw interrupt;
						}
						continue;
					}
					// The script may have run before the interrupt: undo it,
					// owner-checked.
					tryRelease(owner, 0, 0);
					if (interruptible) {
						throw (InterruptedException) new InterruptedException(
								"Interrupted while acquiring lock '" + Printable.of(this.name) + "'")
							.initCause(ex);
					}
					interrupted = true;
					continue;
				}
				if (result > 0) {
					LockHold hold = new LockHold(this.name, this.key, owner, threadId, result, leaseTime == null, sent,
							TimeUnit.MILLISECONDS.toNanos(leaseMillis), kind(), metricName, this.bounds);
					this.template.holds().add(hold);
					CurrentHolds.entered(hold);
					acquired = true;
					failed = false;
					observer.acquired(metricName, kind(), Duration.ofNanos(System.nanoTime() - start));
					return true;
				}
				remaining = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
				if (remaining <= 0) {
					failed = false;
					observer.notAcquired(metricName, kind(), Duration.ofNanos(System.nanoTime() - start), false);
					if (logger.isDebugEnabled()) {
						logger.debug(notAcquired(result, waitNanos));
					}
					return false;
				}
				if (waiter == null) {
					// Registered only now, so retry at once: a release between
					// our attempt and the registration would go unnoticed.
					waiter = signals.register(this.signalKey);
					continue;
				}
				long obstacleMillis = -result;
				if (obstacleMillis >= RESERVED_FOR_WRITER) {
					// Only a waiting writer stands in our way: if it waits on
					// this instance behind us, it gets the wake-up we were given.
					obstacleMillis -= RESERVED_FOR_WRITER;
					signals.signalNext(this.signalKey, waiter);
				}
				long holderLease = TimeUnit.MILLISECONDS.toNanos(obstacleMillis);
				try {
					waiter.await(Math.min(remaining, holderLease));
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						throw ex;
					}
					interrupted = true;
				}
			}
		}
		finally {
			if (failed) {
				observer.notAcquired(metricName, kind(), Duration.ofNanos(System.nanoTime() - start), true);
			}
			if (waiter != null) {
				signals.unregister(this.signalKey, waiter, acquired);
			}
			if (!acquired && announcedWaiting) {
				giveUp(owner);
			}
			if (acquired && sharesWithWaiters()) {
				signals.signal(this.signalKey);
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Say why an acquisition (a skipped run, say) ended without the lock, naming the
	 * instance that holds it; costs a read, so only for the debug log.
	 */
	private String notAcquired(long result, long waitNanos) {
		String prefix = "Lock '" + Printable.of(this.name) + "' (" + kind().tag() + ") not acquired within "
				+ Duration.ofNanos(Math.max(0, waitNanos)) + ": ";
		if (result == LockCommands.NOT_ACKNOWLEDGED) {
			String shortfall = this.template.commands().lastShortfall();
			if (shortfall != null) {
				return prefix + "not acknowledged, " + shortfall;
			}
		}
		String holder;
		try {
			holder = this.template.commands().owner(this.signalKey);
		}
		catch (RuntimeException ex) {
			holder = null;
		}
		long leaseLeft = (result <= -RESERVED_FOR_WRITER) ? -result - RESERVED_FOR_WRITER : -result;
		if (holder == null) {
			return prefix + ((kind() == LockKind.EXCLUSIVE) ? "held (it expired just now)"
					: "held by readers, or reserved for a waiting writer") + ", " + leaseLeft + "ms left";
		}
		String instance = holder.substring(0, Math.max(0, holder.indexOf(':')));
		return prefix + "held by instance " + Printable.of(instance)
				+ (instance.equals(this.template.instanceId()) ? " (this one, another thread or call)" : "")
				+ ", lease left " + leaseLeft + "ms";
	}

	private void giveUp(String owner) {
		try {
			gaveUp(owner);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not withdraw the waiting sign of lock '" + Printable.of(this.name)
					+ "' after giving up; it expires by itself within one lease: " + ex);
		}
	}

	@Override
	void releaseLast(LockHold hold) {
		this.template.observer()
			.released(hold.metricName(), hold.kind(), Duration.ofNanos(System.nanoTime() - hold.acquiredNanos()));
		long result;
		try {
			result = release(hold.owner(), hold.token(), hold.holdAtLeastMillis());
		}
		catch (RuntimeException ex) {
			// The hold may still be in Redis: send the release again later.
			this.template.pendingReleases().failed(this, hold.owner(), hold.token(), hold.holdAtLeastMillis());
			throw ex;
		}
		this.template.signals().signal(this.signalKey);
		if (result == 1) {
			// Our owner id was on the lock all along: nobody else can have held it.
			return;
		}
		this.template.released(hold,
				(result == 0) ? "it had expired or was deleted when released" : "another owner held it when released");
	}

	private long release(String owner, long token, long holdAtLeastMillis) {
		try {
			return tryRelease(owner, token, holdAtLeastMillis);
		}
		catch (RuntimeException ex) {
			if (!interruptedDuring(ex)) {
				throw ex;
			}
			// An interrupt must not leave the lock behind for the rest of its lease.
			try {
				return tryRelease(owner, token, holdAtLeastMillis);
			}
			finally {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Redis did not answer within the wait time. An acquire that timed out may still run
	 * once Redis answers again: undo it, owner-checked, on the same connection, so that
	 * it runs after it; if Redis does not take that either, the stray hold lasts at most
	 * one lease, as nobody renews it.
	 */
	private LockAcquisitionException unreachable(String owner, long waitNanos, RuntimeException ex) {
		undo(owner, ex);
		return new LockAcquisitionException(this.name, Duration.ofNanos(Math.max(0, waitNanos)), ex);
	}

	/**
	 * Release, owner-checked, what an attempt that got no answer may have acquired. Sent
	 * on the same connection after the attempt, so it runs after it; if Redis does not
	 * take it either, the stray hold lasts at most one lease, as nobody renews it.
	 */
	private void undo(String owner, Throwable failure) {
		try {
			tryRelease(owner, 0, 0);
		}
		catch (RuntimeException undoFailed) {
			failure.addSuppressed(undoFailed);
		}
	}

	private static void pause(long nanos, boolean interruptible) throws InterruptedException {
		try {
			TimeUnit.NANOSECONDS.sleep(nanos);
		}
		catch (InterruptedException ex) {
			if (interruptible) {
				throw ex;
			}
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Whether a Redis call failed because the calling thread was interrupted; clears the
	 * interrupt status so that the caller can still talk to Redis.
	 */
	private static boolean interruptedDuring(RuntimeException ex) {
		boolean interrupted = Thread.interrupted();
		for (Throwable cause = ex; cause != null && !interrupted; cause = cause.getCause()) {
			interrupted = cause instanceof InterruptedException
					|| (LETTUCE_INTERRUPTED != null && LETTUCE_INTERRUPTED.isInstance(cause));
		}
		return interrupted;
	}

	/**
	 * Delete this lock's hold in Redis, whoever holds it, and wake the waiters; the
	 * holders find their holds lost.
	 */
	@Override
	public boolean forceUnlock() {
		boolean deleted = this.template.commands().forceUnlock(this.key, releaseMessage());
		this.template.signals().signal(this.signalKey);
		return deleted;
	}

}
