package io.github.redislock.internal.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Timers of asynchronous acquisitions, on one shared platform thread: a command's answer
 * that does not come in time, and a waiter's bound (the obstacle's lease, the wait time).
 * A timer only completes a future; what depends on it is quick (a next script call) or is
 * handed to the callback executor, never run on this thread.
 */
final class AsyncTimeouts {

	/** Made on first use: set under the class's monitor, read without it (volatile). */
	private static volatile @Nullable ThreadPoolTaskScheduler scheduler;

	private AsyncTimeouts() {
	}

	private static ThreadPoolTaskScheduler scheduler() {
		ThreadPoolTaskScheduler current = scheduler;
		if (current == null) {
			synchronized (AsyncTimeouts.class) {
				current = scheduler;
				if (current == null) {
					current = EngineThreads.scheduler("redislock-async-timer", 1);
					scheduler = current;
				}
			}
		}
		return current;
	}

	/**
	 * Return how many timers wait in the scheduler now (for tests).
	 */
	static int pending() {
		return scheduler().getScheduledThreadPoolExecutor().getQueue().size();
	}

	/**
	 * Fail {@code future} with {@code failure} unless it completes within
	 * {@code timeout}.
	 */
	static <T> CompletableFuture<T> within(CompletableFuture<T> future, Duration timeout,
			Supplier<? extends Throwable> failure) {
		if (future.isDone()) {
			return future;
		}
		ScheduledFuture<?> timer = scheduler().schedule(() -> future.completeExceptionally(failure.get()),
				Instant.now().plus(timeout));
		future.whenComplete((result, ex) -> timer.cancel(false));
		return future;
	}

	/**
	 * Complete {@code future} with {@code null} after {@code nanos}, unless it completes
	 * before.
	 */
	static void completeAfter(CompletableFuture<@Nullable Void> future, long nanos) {
		if (future.isDone()) {
			return;
		}
		ScheduledFuture<?> timer = scheduler().schedule(() -> future.complete(null),
				Instant.now().plusNanos(Math.max(0, nanos)));
		future.whenComplete((result, ex) -> timer.cancel(false));
	}

}
