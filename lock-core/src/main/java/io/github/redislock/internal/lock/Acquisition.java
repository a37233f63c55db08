package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockObserver;
import io.github.redislock.internal.AclRefusals;
import io.github.redislock.support.CurrentLocks;
import io.github.redislock.support.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.util.Assert;

/**
 * One call's acquisition of a lock ({@link AbstractRedisLock#acquireNew}): script
 * attempts, each followed, while the wait time lasts, by a wait for a release message
 * (bounded by the obstacle's lease), and retries through connection failures. Runs on,
 * and is confined to, the calling thread. {@link #run()} moves it from
 * {@link State#TRYING} to {@link State#ACQUIRED} or {@link State#NOT_ACQUIRED}; leaving
 * it by an exception leaves it {@code TRYING}, which {@link #finish()} counts as an
 * error. The states, threads and races are described on {@link AbstractRedisLock}.
 */
final class Acquisition {

	/** The lock's own logger: what an acquisition logs is configured with the lock. */
	private static final Log logger = LogFactory.getLog(AbstractRedisLock.class);

	private final AbstractRedisLock lock;

	private final long threadId;

	private final long waitNanos;

	private final @Nullable Duration leaseTime;

	private final boolean interruptible;

	private final String owner;

	private final long leaseMillis;

	private final String metricName;

	/** Whether the caller skips its work when the lock is not acquired. */
	private final boolean skipping;

	private final LockObserver observer;

	private final ReleaseSignals signals;

	private final long start = System.nanoTime();

	private State state = State.TRYING;

	/** Registered after the first failed attempt. */
	private ReleaseSignals.@Nullable Waiter waiter;

	/** An interrupt to restore when done (a non-interruptible acquisition). */
	private boolean interrupted;

	/**
	 * Whether an attempt may have left a sign that this caller waits (a writer's marker):
	 * then giving up must remove it, also when the first attempt was the last.
	 */
	private boolean announcedWaiting;

	Acquisition(AbstractRedisLock lock, long threadId, long waitNanos, @Nullable Duration leaseTime,
			boolean interruptible) {
		this.lock = lock;
		this.threadId = threadId;
		this.waitNanos = waitNanos;
		this.leaseTime = leaseTime;
		this.interruptible = interruptible;
		this.owner = this.lock.template.ownerId(threadId);
		this.leaseMillis = (leaseTime != null) ? leaseTime.toMillis() : this.lock.template.leaseMillis();
		this.metricName = LockMetricNames.of(this.lock.name, this.lock.metricTag, this.lock.template.metricNames());
		this.skipping = this.lock.metricTag.skipping();
		this.observer = this.lock.template.observer();
		this.signals = this.lock.template.signals();
	}

	boolean run() throws InterruptedException {
		try {
			while (true) {
				if (this.waiter != null) {
					// A release of this lock by this instance that failed (it timed
					// out, and may not have run) is sent again first: woken by its
					// failure, this waiter may be the one it blocks.
					this.lock.template.pendingReleases().retry(this.lock.key);
				}
				long sent = System.nanoTime();
				Long result = attempt();
				if (result == null) {
					continue;
				}
				if (result > 0) {
					return acquired(result, sent);
				}
				if (remainingNanos() <= 0) {
					return notAcquired(result);
				}
				if (this.waiter == null) {
					// Registered only now, so try again once this instance listens
					// on the lock's release channel: a release between that attempt
					// and the subscription would go unnoticed.
					this.waiter = this.signals.register(this.lock.signalKey);
					awaitSubscribed(this.waiter);
					continue;
				}
				awaitRelease(AbstractRedisLock.Obstacle.of(result));
			}
		}
		finally {
			finish();
		}
	}

	private long remainingNanos() {
		return (this.waitNanos < 0) ? Long.MAX_VALUE : this.waitNanos - (System.nanoTime() - this.start);
	}

	/**
	 * Run the acquire script once.
	 * @return its result, or {@code null} when the attempt failed and is to be made again
	 * (Redis unreachable within the wait time, or an ignored interrupt)
	 */
	private @Nullable Long attempt() throws InterruptedException {
		boolean willWait = remainingNanos() > 0;
		this.announcedWaiting |= willWait;
		try {
			return this.lock.tryAcquire(this.owner, this.leaseMillis, willWait,
					this.signals.hasWaiters(this.lock.signalKey, this.waiter));
		}
		catch (RuntimeException ex) {
			if (AbstractRedisLock.interruptedDuring(ex)) {
				interruptedAttempt(ex);
			}
			else {
				unreachable(ex);
			}
			return null;
		}
	}

	/**
	 * The attempt failed because the thread was interrupted; the script may have run
	 * before the interrupt, so it is undone, owner-checked.
	 */
	private void interruptedAttempt(RuntimeException ex) throws InterruptedException {
		this.lock.undo(this.owner, ex);
		if (this.interruptible) {
			throw (InterruptedException) new InterruptedException(
					"Interrupted while acquiring lock '" + Printable.of(this.lock.name) + "'")
				.initCause(ex);
		}
		this.interrupted = true;
	}

	/**
	 * Whether Redis refused a command, key or channel to the application's ACL user
	 * ({@code NOPERM}, or a script's command refused: see {@link AclRefusals}).
	 */
	static boolean refusedByAcl(Throwable ex) {
		return AclRefusals.isRefusal(ex);
	}

	/**
	 * Redis could not be reached (a failover, say): a waiting caller keeps trying within
	 * its wait time; the last failure is reported as it is.
	 */
	private void unreachable(RuntimeException ex) throws InterruptedException {
		if (!(ex instanceof DataAccessException)) {
			throw ex;
		}
		long left = remainingNanos();
		if (left <= 0 || refusedByAcl(ex)) {
			// An ACL refusal stays until an operator changes the user: no use waiting.
			throw this.lock.unreachable(this.owner, this.waitNanos, ex);
		}
		try {
			AbstractRedisLock.pause(Math.min(left, AbstractRedisLock.CONNECTION_RETRY_NANOS), this.interruptible);
		}
		catch (InterruptedException interrupt) {
			// The failed attempt may have reached Redis: undo it first.
			this.lock.undo(this.owner, interrupt);
			throw interrupt;
		}
	}

	private boolean acquired(long token, long sentNanos) {
		LockHold hold = new LockHold(this.lock.name, this.lock.key, this.owner, this.threadId, token,
				this.leaseTime == null, sentNanos, TimeUnit.MILLISECONDS.toNanos(this.leaseMillis), this.lock.kind(),
				this.metricName, this.lock.bounds);
		this.lock.template.holds().add(hold);
		CurrentLocks.entered(hold);
		this.state = State.ACQUIRED;
		this.observer.acquired(this.metricName, this.lock.kind(), elapsed());
		return true;
	}

	private boolean notAcquired(long result) {
		this.state = State.NOT_ACQUIRED;
		AbstractRedisLock.timedOut(this.observer, this.metricName, this.lock.kind(), elapsed(), this.skipping);
		if (logger.isDebugEnabled()) {
			logger.debug(this.lock.notAcquired(result, this.waitNanos));
		}
		return false;
	}

	private void awaitSubscribed(ReleaseSignals.Waiter waiter) throws InterruptedException {
		try {
			waiter.awaitSubscribed(remainingNanos());
		}
		catch (InterruptedException ex) {
			if (this.interruptible) {
				throw ex;
			}
			this.interrupted = true;
		}
	}

	/**
	 * Wait for a release message, at most until the obstacle's lease runs out.
	 */
	private void awaitRelease(AbstractRedisLock.Obstacle obstacle) throws InterruptedException {
		ReleaseSignals.Waiter waiter = this.waiter;
		Assert.state(waiter != null, "Not registered");
		if (obstacle.onlyWaitingWriter()) {
			// If that writer waits on this instance behind us, it gets the wake-up
			// we were given.
			this.signals.signalNext(this.lock.signalKey, waiter);
		}
		try {
			waiter.await(Math.min(remainingNanos(), TimeUnit.MILLISECONDS.toNanos(obstacle.leaseLeftMillis())));
		}
		catch (InterruptedException ex) {
			if (this.interruptible) {
				throw ex;
			}
			this.interrupted = true;
		}
	}

	private Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.start);
	}

	private void finish() {
		boolean acquired = this.state == State.ACQUIRED;
		this.lock.template.commands().acquisitionEnded(this.owner, acquired);
		if (this.state == State.TRYING) {
			this.observer.notAcquired(this.metricName, this.lock.kind(), elapsed(), true);
		}
		if (this.waiter != null) {
			this.signals.unregister(this.lock.signalKey, this.waiter, acquired);
		}
		if (!acquired && this.announcedWaiting) {
			this.lock.giveUp(this.owner);
		}
		if (acquired && this.lock.sharesWithWaiters()) {
			this.signals.signal(this.lock.signalKey);
		}
		if (this.interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Where an {@link Acquisition} stands.
	 */
	private enum State {

		/** Attempting, or waiting between attempts. */
		TRYING,

		/** Done: the lock is held. */
		ACQUIRED,

		/** Done: the wait time ran out. */
		NOT_ACQUIRED

	}

}
