package io.github.redislock.internal.lock;

import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockLostEvent;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.LockObserver;
import io.github.redislock.core.OnLockLost;
import io.github.redislock.support.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * Reports lost holds: once per hold a WARN log and a {@link LockLostEvent}, and, when
 * enabled, an interrupt of the holding thread; at release a {@link LockLostException} or
 * a log line, per {@link OnLockLost}.
 * <p>
 * Events are delivered on a thread of their own, in the order the losses were found: the
 * renewal and deadline threads that find most losses never wait for application code, so
 * a slow listener cannot make other held locks expire.
 */
final class LockLossReporter implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockLossReporter.class);

	private final Object source;

	private final OnLockLost onLockLost;

	private volatile LockLostListener listener = (event) -> {
	};

	private volatile LockObserver observer = new LockObserver() {
	};

	private volatile boolean interruptHolder;

	private final LockMetricNames.Derived metricNames = new LockMetricNames.Derived();

	private final ThreadPoolTaskExecutor events = EngineThreads.serial("redislock-lock-lost-events");

	LockLossReporter(Object source, OnLockLost onLockLost) {
		this.source = source;
		this.onLockLost = onLockLost;
	}

	void setListener(LockLostListener listener) {
		this.listener = listener;
	}

	void setObserver(LockObserver observer) {
		this.observer = observer;
	}

	void setInterruptHolder(boolean interruptHolder) {
		this.interruptHolder = interruptHolder;
	}

	LockObserver observer() {
		return this.observer;
	}

	/**
	 * Return the metric names derived so far from this template's lock names.
	 */
	LockMetricNames.Derived metricNames() {
		return this.metricNames;
	}

	/**
	 * A hold is found lost while its thread still holds it; reported once.
	 */
	void lost(LockHold hold, String reason) {
		if (report(hold, reason) && this.interruptHolder) {
			hold.interruptHolder();
		}
	}

	/**
	 * A hold is found lost by its holder (an extension, or its thread asking for the lock
	 * again); reported once, and nobody is interrupted: the holder learns from the
	 * answer.
	 */
	void lostFoundByHolder(LockHold hold, String reason) {
		report(hold, reason);
	}

	private boolean report(LockHold hold, String reason) {
		if (!hold.markLost(reason)) {
			return false;
		}
		this.observer.lost(hold.metricName(), hold.kind());
		logger.warn("Lock '" + Printable.of(hold.name()) + "' (fencing token " + hold.token() + ") was lost: " + reason
				+ "; held for " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - hold.acquiredNanos()) + "ms");
		LockLostEvent event = new LockLostEvent(this.source, hold.name(), hold.token());
		LockLostListener listener = this.listener;
		try {
			this.events.execute(() -> {
				try {
					listener.lockLost(event);
				}
				catch (RuntimeException ex) {
					logger.error("Lock lost listener failed for '" + Printable.of(hold.name()) + "'",
							Printable.failure(ex));
				}
			});
		}
		catch (java.util.concurrent.RejectedExecutionException ex) {
			logger.debug("Lock lost event for '" + Printable.of(hold.name())
					+ "' not delivered: the lock template is closed");
		}
		return true;
	}

	/**
	 * The last hold of a lock was released, and Redis no longer had it as ours.
	 */
	void releasedLost(LockHold hold, String reason) {
		report(hold, reason);
		LockLostException exception = new LockLostException(hold.name(), hold.token(), hold.lostReason());
		if (this.onLockLost == OnLockLost.THROW) {
			throw exception;
		}
		logger.warn(exception.getMessage());
	}

	@Override
	public void close() {
		this.events.shutdown();
	}

}
