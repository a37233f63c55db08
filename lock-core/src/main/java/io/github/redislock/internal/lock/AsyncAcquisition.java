package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * One asynchronous acquisition of a lock ({@link AbstractRedisLock#acquireAsync}): the
 * same attempts, waits and retries as {@link Acquisition}, each step started by the
 * answer or wake-up before it, so no thread waits. Its {@link #result} is completed on
 * whichever thread moved it last (a Lettuce I/O thread, a timer, a blocking-call thread);
 * callers hand it on to their own executor. The states, threads and races it shares with
 * {@link Acquisition} are described on {@link AbstractRedisLock}.
 */
final class AsyncAcquisition {

	private final AbstractRedisLock lock;

	private final CompletableFuture<@Nullable LockHold> result = new CompletableFuture<>();

	private final long waitNanos;

	private final @Nullable Duration leaseTime;

	private final long holderId;

	private final String owner;

	private final long leaseMillis;

	private final String metricName;

	/** Whether the caller skips its work when the lock is not acquired. */
	private final boolean skipping;

	private final LockObserver observer;

	private final ReleaseSignals signals;

	private final long start = System.nanoTime();

	private final AtomicBoolean finished = new AtomicBoolean();

	private volatile ReleaseSignals.@Nullable Waiter waiter;

	private volatile boolean announcedWaiting;

	AsyncAcquisition(AbstractRedisLock lock, long waitNanos, @Nullable Duration leaseTime) {
		this.lock = lock;
		this.waitNanos = waitNanos;
		this.leaseTime = leaseTime;
		DefaultRedisLockTemplate template = lock.template;
		this.holderId = template.asyncHolderId();
		this.owner = template.ownerId(this.holderId);
		this.leaseMillis = (leaseTime != null) ? leaseTime.toMillis() : template.leaseMillis();
		this.metricName = LockMetricNames.of(this.lock.name, this.lock.metricTag, template.metricNames());
		this.skipping = this.lock.metricTag.skipping();
		this.observer = template.observer();
		this.signals = template.signals();
		// Cancelled by the caller: give up; an attempt under way is undone by its
		// answer.
		this.result.whenComplete((hold, ex) -> {
			if (this.result.isCancelled()) {
				finish(false);
			}
		});
	}

	/**
	 * Return the future of the hold, or of {@code null} when the wait time ran out.
	 */
	CompletableFuture<@Nullable LockHold> result() {
		return this.result;
	}

	private long remainingNanos() {
		return (this.waitNanos < 0) ? Long.MAX_VALUE : this.waitNanos - (System.nanoTime() - this.start);
	}

	void attempt() {
		if (this.result.isDone()) {
			return;
		}
		boolean willWait = remainingNanos() > 0;
		this.announcedWaiting |= willWait;
		long sent = System.nanoTime();
		CompletableFuture<Long> answer;
		try {
			answer = this.lock.template.commands()
				.acquiringAsync(this.lock.wakingAfterUndo(this.lock.acquireCall(this.owner, this.leaseMillis, willWait,
						this.signals.hasWaiters(this.lock.signalKey, this.waiter))));
		}
		catch (RuntimeException ex) {
			answer = CompletableFuture.failedFuture(ex);
		}
		answer.whenComplete((value, failure) -> {
			if (failure != null) {
				failed((failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
						: failure);
			}
			else {
				answered(value, sent);
			}
		});
	}

	private void answered(long value, long sentNanos) {
		if (value > 0 && this.result.isDone()) {
			// Given up while the attempt was under way: undo it, owner-checked.
			undoAsync(value);
			return;
		}
		if (value > 0) {
			LockHold hold = new LockHold(this.lock.name, this.lock.key, this.owner, this.holderId, value,
					this.leaseTime == null, sentNanos, TimeUnit.MILLISECONDS.toNanos(this.leaseMillis),
					this.lock.kind(), this.metricName, this.lock.bounds, null);
			this.lock.holds().add(hold);
			if (!this.result.complete(hold)) {
				// Given up at this very moment: the hold goes back at once.
				this.lock.holds().remove(hold);
				undoAsync(value);
				return;
			}
			this.observer.acquired(this.metricName, this.lock.kind(), elapsed());
			finish(true);
			return;
		}
		if (this.result.isDone()) {
			return;
		}
		if (remainingNanos() <= 0) {
			AbstractRedisLock.timedOut(this.observer, this.metricName, this.lock.kind(), elapsed(), this.skipping);
			this.result.complete(null);
			finish(false);
			return;
		}
		ReleaseSignals.Waiter waiter = this.waiter;
		if (waiter == null) {
			// Registered only now, so try again once this instance listens on the
			// lock's release channel: a release between that attempt and the
			// subscription would go unnoticed. Nothing blocks: this may be Lettuce's
			// I/O thread.
			waiter = this.signals.register(this.lock.signalKey);
			this.waiter = waiter;
			CompletableFuture<@Nullable Void> subscribed = new CompletableFuture<>();
			waiter.subscribed().whenComplete((done, ex) -> subscribed.complete(null));
			AsyncTimeouts.completeAfter(subscribed, remainingNanos());
			subscribed.whenComplete((done, ex) -> attempt());
			return;
		}
		AbstractRedisLock.Obstacle obstacle = AbstractRedisLock.Obstacle.of(value);
		if (obstacle.onlyWaitingWriter()) {
			this.signals.signalNext(this.lock.signalKey, waiter);
		}
		waiter.next(Math.min(remainingNanos(), TimeUnit.MILLISECONDS.toNanos(obstacle.leaseLeftMillis())))
			.whenComplete((woken, ex) -> attempt());
	}

	private void undoAsync(long token) {
		this.lock.undoAsync(this.owner, token);
	}

	private void failed(Throwable failure) {
		if (this.result.isDone()) {
			return;
		}
		long left = remainingNanos();
		if (failure instanceof DataAccessException && left > 0) {
			// Redis unreachable for now: try again within the wait time.
			CompletableFuture<@Nullable Void> pause = new CompletableFuture<>();
			AsyncTimeouts.completeAfter(pause, Math.min(left, AbstractRedisLock.CONNECTION_RETRY_NANOS));
			pause.whenComplete((done, ex) -> attempt());
			return;
		}
		// The attempt may have reached Redis: undo it, owner-checked.
		this.lock.undoAsync(this.owner, 0);
		this.observer.notAcquired(this.metricName, this.lock.kind(), elapsed(), true);
		this.result.completeExceptionally((failure instanceof DataAccessException)
				? new LockAcquisitionException(this.lock.name, Duration.ofNanos(Math.max(0, this.waitNanos)), failure)
				: failure);
		finish(false);
	}

	private Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.start);
	}

	private void finish(boolean acquired) {
		if (!this.finished.compareAndSet(false, true)) {
			return;
		}
		this.lock.template.commands().acquisitionEnded(this.owner, acquired);
		ReleaseSignals.Waiter waiter = this.waiter;
		if (waiter != null) {
			this.signals.unregister(this.lock.signalKey, waiter, acquired);
		}
		if (!acquired && this.announcedWaiting) {
			// A writer's marker is withdrawn by a script of its own, off this thread.
			CompletableFuture.runAsync(() -> this.lock.giveUp(this.owner),
					this.lock.template.commands().blockingCalls());
		}
		if (acquired && this.lock.sharesWithWaiters()) {
			this.signals.signal(this.lock.signalKey);
		}
	}

}
