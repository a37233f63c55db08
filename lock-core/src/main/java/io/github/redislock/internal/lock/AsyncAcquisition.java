package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockObserver;
import io.github.redislock.internal.AclRefusals;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * One asynchronous acquisition of a lock ({@link AbstractRedisLock#acquireAsync}): the
 * same attempts, waits and retries as {@link Acquisition}, each step started by the
 * answer or wake-up before it, so no thread waits. Its {@link #result} is completed on
 * whichever thread moved it last (a Lettuce I/O thread, a timer, a blocking-call thread);
 * callers hand it on to their own executor. The states, threads and races it shares with
 * {@link Acquisition} are described on {@link AbstractRedisLock}.
 * <p>
 * It has <em>settled</em> ({@link #settled()}) once it has ended and none of its script
 * calls is under way any more: an attempt on its way when it was given up has been
 * answered (or has failed), and what that attempt took, or may have taken, has been given
 * back. A caller that waits on its own thread ({@link #await()}) returns only then.
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

	/** Attempts on their way and undos of what they took, not answered yet. */
	private final AtomicInteger callsUnderWay = new AtomicInteger();

	/**
	 * Whether an attempt got no answer (it timed out, say), so that it may have taken the
	 * lock unknown to us: until a later attempt is answered, ending without the lock
	 * undoes it, owner-checked.
	 */
	private final AtomicBoolean unanswered = new AtomicBoolean();

	private final CompletableFuture<@Nullable Void> settled = new CompletableFuture<>();

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
		// answer, one that got none now.
		this.result.whenComplete((hold, ex) -> {
			if (this.result.isCancelled()) {
				finish(false);
				undoUnanswered();
			}
			settleIfIdle();
		});
	}

	/**
	 * Return the future of the hold, or of {@code null} when the wait time ran out.
	 */
	CompletableFuture<@Nullable LockHold> result() {
		return this.result;
	}

	/**
	 * Return the future that completes once this acquisition has settled: ended, with no
	 * attempt or undo of it under way.
	 */
	CompletableFuture<@Nullable Void> settled() {
		return this.settled;
	}

	/**
	 * Wait on the calling thread for the hold: how a blocking caller of asynchronous
	 * holds (a semaphore's {@code tryAcquire}) waits. Whichever way it stops waiting, it
	 * leaves nothing behind, as an {@link Acquisition} does: interrupted, it gives the
	 * acquisition up (and gives back a hold that came at that very moment); failed, the
	 * last attempt is undone. Either way it returns only once that is done, at most as
	 * long as an attempt and its undo can take ({@link LockCommands#settleBound()}), or
	 * once the thread is interrupted (again) meanwhile: as an {@link Acquisition}'s undo
	 * is cut short by a second interrupt, a caller told twice to stop (an executor shut
	 * down now, while Redis hangs) is not held for the command timeouts. What is under
	 * way then still settles, without it.
	 * @return the hold, or {@code null} when the wait time ran out
	 * @throws InterruptedException when the calling thread was interrupted (the interrupt
	 * status is then clear, unless another interrupt came while it settled)
	 */
	@Nullable LockHold await() throws InterruptedException {
		try {
			return this.result.get();
		}
		catch (InterruptedException ex) {
			CompletableFuture<@Nullable Void> settling = this.settled;
			if (!this.result.cancel(false) && !this.result.isCompletedExceptionally()) {
				LockHold hold = this.result.getNow(null);
				if (hold != null) {
					// Acquired at this very moment: the hold goes back before the caller
					// leaves.
					settling = this.lock.releaseAsync(hold);
				}
			}
			awaitSettled(settling);
			throw ex;
		}
		catch (ExecutionException ex) {
			awaitSettled(this.settled);
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new CompletionException(cause);
		}
	}

	/**
	 * Wait until {@code settling} completes, whatever its outcome, or until the calling
	 * thread is interrupted, keeping the interrupt for the caller. Bounded, though every
	 * call it waits for is timed anyway: past the bound, or once interrupted, what is
	 * still under way settles on its own (an answer that comes is undone), and a hold
	 * left behind lasts at most one lease, as nobody renews it.
	 */
	private void awaitSettled(CompletableFuture<?> settling) {
		long deadline = System.nanoTime() + this.lock.template.commands().settleBound().toNanos();
		try {
			settling.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | CancellationException | TimeoutException ex) {
			// Settled one way or another, or past the bound.
		}
	}

	private void callEnded() {
		this.callsUnderWay.decrementAndGet();
		settleIfIdle();
	}

	private void settleIfIdle() {
		if (this.callsUnderWay.get() == 0 && this.result.isDone()) {
			this.settled.complete(null);
		}
	}

	private long remainingNanos() {
		return (this.waitNanos < 0) ? Long.MAX_VALUE : this.waitNanos - (System.nanoTime() - this.start);
	}

	void attempt() {
		// Counted before it looks whether it was given up, so that giving up meanwhile
		// cannot settle without it.
		this.callsUnderWay.incrementAndGet();
		if (this.result.isDone()) {
			callEnded();
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
			try {
				if (failure != null) {
					failed((failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
							: failure);
				}
				else {
					answered(value, sent);
				}
			}
			finally {
				callEnded();
			}
		});
	}

	private void answered(long value, long sentNanos) {
		// What an earlier attempt that got no answer took, this one would have found
		// ours.
		this.unanswered.set(false);
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
		this.callsUnderWay.incrementAndGet();
		this.lock.undoAsync(this.owner, token).whenComplete((done, ex) -> callEnded());
	}

	/**
	 * Undo, owner-checked and once, what attempts that got no answer may have taken.
	 */
	private void undoUnanswered() {
		if (this.unanswered.getAndSet(false)) {
			undoAsync(0);
		}
	}

	private void failed(Throwable failure) {
		// The attempt may have reached Redis.
		this.unanswered.set(true);
		if (this.result.isDone()) {
			undoUnanswered();
			return;
		}
		long left = remainingNanos();
		if (failure instanceof DataAccessException && left > 0 && !AclRefusals.isRefusal(failure)) {
			// Redis unreachable for now: try again within the wait time (a retry finds
			// what the attempt took ours); given up meanwhile, the attempt is undone. An
			// ACL refusal stays until an operator changes the user: no use waiting.
			CompletableFuture<@Nullable Void> pause = new CompletableFuture<>();
			AsyncTimeouts.completeAfter(pause, Math.min(left, AbstractRedisLock.CONNECTION_RETRY_NANOS));
			pause.whenComplete((done, ex) -> attempt());
			return;
		}
		undoUnanswered();
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
