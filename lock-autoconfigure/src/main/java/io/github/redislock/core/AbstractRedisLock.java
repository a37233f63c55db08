package io.github.redislock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.util.Assert;

/**
 * Base of the {@link RedisLock} types: local re-entry, the acquire-or-wait loop, release
 * and loss reporting. Subclasses supply the scripts.
 * <p>
 * Acquiring and releasing are one script call each; re-entry by the holding thread is
 * counted locally and costs no round trip, so a command re-sent after a reconnect can
 * never count a hold twice. A thread that finds the lock taken parks until a release
 * message wakes it, or until the obstacle's lease would have run out.
 */
abstract class AbstractRedisLock implements RedisLock {

	protected final DefaultRedisLockTemplate template;

	protected final String name;

	/** Key of this lock's hold in Redis: what the watchdog renews. */
	protected final String key;

	/** Key that waiters wait on and release messages name. */
	protected final String signalKey;

	AbstractRedisLock(DefaultRedisLockTemplate template, String name, String key, String signalKey) {
		this.template = template;
		this.name = name;
		this.key = key;
		this.signalKey = signalKey;
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
	 * @return 1 released, 0 the hold was gone, -1 another owner holds it
	 */
	abstract long tryRelease(String owner);

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
	public void lock() {
		boolean interrupted = false;
		while (true) {
			try {
				acquire(-1, null, false);
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(-1, null, true);
	}

	@Override
	public boolean tryLock() {
		try {
			return acquire(0, null, true);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return acquire(Math.max(0, unit.toNanos(time)), null, true);
	}

	@Override
	public boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) {
		Assert.notNull(waitTime, "'waitTime' must not be null");
		Assert.isTrue(!waitTime.isNegative(), "'waitTime' must not be negative");
		Assert.isTrue(leaseTime == null || leaseTime.toMillis() > 0, "'leaseTime' must be positive");
		try {
			return acquire(waitTime.toNanos(), leaseTime, true);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * @param waitNanos how long to wait, negative for as long as it takes
	 */
	private boolean acquire(long waitNanos, @Nullable Duration leaseTime, boolean interruptible)
			throws InterruptedException {
		long threadId = DefaultRedisLockTemplate.currentThreadId();
		LockHold held = this.template.holds().get(this.key, threadId);
		if (held != null) {
			held.reenter();
			LockContext.entered(held);
			return true;
		}
		checkAcquire(threadId);
		if (interruptible && Thread.interrupted()) {
			throw new InterruptedException();
		}
		String owner = this.template.ownerId(threadId);
		long leaseMillis = (leaseTime != null) ? leaseTime.toMillis() : this.template.leaseMillis();
		String metricName = LockMetricNames.of(this.name);
		LockObserver observer = this.template.observer();
		long start = System.nanoTime();
		boolean failed = true;
		ReleaseSignals signals = this.template.signals();
		ReleaseSignals.Waiter waiter = null;
		boolean acquired = false;
		boolean interrupted = false;
		try {
			while (true) {
				long remaining = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
				long sent = System.nanoTime();
				long result;
				try {
					result = tryAcquire(owner, leaseMillis, remaining > 0, signals.hasWaiters(this.signalKey, waiter));
				}
				catch (RuntimeException ex) {
					if (!interruptedDuring(ex)) {
						long left = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
						if (!(ex instanceof DataAccessException) || left <= 0) {
							throw ex;
						}
						// Redis unreachable for now (e.g. a failover): a waiting caller
						// keeps
						// trying within its wait time; a last failure is reported as it
						// is.
						pause(Math.min(left, CONNECTION_RETRY_NANOS), interruptible);
						continue;
					}
					// The script may have run before the interrupt: undo it,
					// owner-checked.
					tryRelease(owner);
					if (interruptible) {
						throw (InterruptedException) new InterruptedException(
								"Interrupted while acquiring lock '" + this.name + "'")
							.initCause(ex);
					}
					interrupted = true;
					continue;
				}
				if (result > 0) {
					LockHold hold = new LockHold(this.name, this.key, owner, threadId, result, leaseTime == null, sent,
							TimeUnit.MILLISECONDS.toNanos(leaseMillis), kind(), metricName);
					this.template.holds().add(hold);
					LockContext.entered(hold);
					acquired = true;
					failed = false;
					observer.acquired(metricName, kind(), Duration.ofNanos(System.nanoTime() - start));
					return true;
				}
				remaining = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
				if (remaining <= 0) {
					failed = false;
					observer.notAcquired(metricName, kind(), Duration.ofNanos(System.nanoTime() - start), false);
					return false;
				}
				if (waiter == null) {
					// Registered only now, so retry at once: a release between our
					// attempt
					// and the registration would otherwise go unnoticed.
					waiter = signals.register(this.signalKey);
					continue;
				}
				long obstacleMillis = -result;
				if (obstacleMillis >= RESERVED_FOR_WRITER) {
					// Only a waiting writer stands in our way: if it waits on this
					// instance
					// behind us, it must get the wake-up we were given.
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
				if (!acquired) {
					gaveUp(owner);
				}
			}
			if (acquired && sharesWithWaiters()) {
				signals.signal(this.signalKey);
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void unlock() {
		long threadId = DefaultRedisLockTemplate.currentThreadId();
		LockHold hold = this.template.holds().get(this.key, threadId);
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by the current thread ("
					+ Thread.currentThread().getName() + "); only the thread that acquired it can release it");
		}
		LockContext.exited(hold);
		if (hold.exit() > 0) {
			return;
		}
		this.template.holds().remove(hold);
		this.template.observer()
			.released(hold.metricName(), hold.kind(), Duration.ofNanos(System.nanoTime() - hold.acquiredNanos()));
		long result = release(hold.owner());
		this.template.signals().signal(this.signalKey);
		if (result == 1) {
			// Our owner id was on the lock all along: nobody else can have held it.
			return;
		}
		this.template.released(hold,
				(result == 0) ? "it had expired or was deleted when released" : "another owner held it when released");
	}

	private long release(String owner) {
		try {
			return tryRelease(owner);
		}
		catch (RuntimeException ex) {
			if (!interruptedDuring(ex)) {
				throw ex;
			}
			// An interrupt must not leave the lock behind for the rest of its lease.
			try {
				return tryRelease(owner);
			}
			finally {
				Thread.currentThread().interrupt();
			}
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
					|| cause.getClass().getSimpleName().equals("RedisCommandInterruptedException");
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

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Distributed locks do not support conditions");
	}

	@Override
	public boolean isHeldByCurrentThread() {
		LockHold hold = this.template.holds().get(this.key, DefaultRedisLockTemplate.currentThreadId());
		return hold != null && hold.isHeld();
	}

	@Override
	public int getHoldCount() {
		LockHold hold = this.template.holds().get(this.key, DefaultRedisLockTemplate.currentThreadId());
		return (hold != null) ? hold.count() : 0;
	}

	@Override
	public long fencingToken() {
		LockHold hold = this.template.holds().get(this.key, DefaultRedisLockTemplate.currentThreadId());
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by the current thread");
		}
		return hold.token();
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + " '" + this.name + "'";
	}

}
