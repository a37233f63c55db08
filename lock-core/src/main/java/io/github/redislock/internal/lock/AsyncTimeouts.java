package io.github.redislock.internal.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Timers of asynchronous acquisitions, on one shared platform thread: a command's answer
 * that does not come in time, and a waiter's bound (the obstacle's lease, the wait time).
 * A timer only completes a future; what depends on it is quick (a next script call) or is
 * handed to the callback executor, never run on this thread.
 * <p>
 * Timeouts of answers ({@link #within}) from {@link #COARSE_MIN} to {@link #COARSE_MAX}
 * are almost never reached: each call starts one and its answer cancels it. They are not
 * scheduled one by one (each would wake the timer thread when it became the earliest,
 * twice per lock + unlock pair: measured, 14.5 context switches per semaphore pair
 * against 10.9 without), but kept in slots of {@link #TICK_NANOS} and failed by a tick
 * that runs every {@code TICK_NANOS} while any is kept (and for a second after the last
 * one came), so a timeout fires at most one tick late (later on a busy machine, never
 * earlier); starting and cancelling one is a map entry. Every call is completed: a
 * failure that cannot be made fails it with what making it threw. Slots whose calls were
 * all answered stay until a tick passes them (once the tick has stopped: until the next
 * timeout kept starts it again), a few hundred small objects at most with a 60 s command
 * timeout.
 */
final class AsyncTimeouts {

	/** The shortest answer timeout kept in slots rather than scheduled on its own. */
	static final Duration COARSE_MIN = Duration.ofSeconds(1);

	/**
	 * The longest answer timeout kept in slots: longer ones (a command timeout of years,
	 * which Lettuce accepts) are scheduled on their own, whose deadline cannot overflow.
	 */
	static final Duration COARSE_MAX = Duration.ofHours(1);

	/**
	 * Slots are numbered from this {@link System#nanoTime()}, so that a wrap of it orders
	 * them.
	 */
	private static final long BASE = System.nanoTime();

	/** The width of a slot, and the tick's period. */
	static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/** How long the tick keeps running after the last timeout was kept. */
	private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** The kept timeouts by slot ((deadline - BASE) / TICK_NANOS, rounded up). */
	private static final ConcurrentSkipListMap<Long, Slot> slots = new ConcurrentSkipListMap<>();

	/** Whether the tick is scheduled. */
	private static final AtomicBoolean ticking = new AtomicBoolean();

	/** The tick: one task at a fixed delay, cancelled when idle. */
	private static volatile @Nullable ScheduledFuture<?> tickTask;

	/** Guards starting and stopping the tick (not its runs, nor keeping a timeout). */
	private static final Object tickLock = new Object();

	/**
	 * How many timeouts are kept in slots (each counted once, until its call completes).
	 */
	private static final java.util.concurrent.atomic.AtomicInteger keptCount = new java.util.concurrent.atomic.AtomicInteger();

	/** When the last timeout was kept ({@link System#nanoTime()}). */
	private static volatile long lastKept;

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
		return scheduler().getScheduledThreadPoolExecutor().getQueue().size() + kept();
	}

	/**
	 * Return how many answer timeouts are kept in slots now (for tests).
	 */
	static int kept() {
		return keptCount.get();
	}

	/**
	 * Return whether the tick runs (for tests).
	 */
	static boolean isTicking() {
		return ticking.get();
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
		if (timeout.compareTo(COARSE_MIN) >= 0 && timeout.compareTo(COARSE_MAX) <= 0) {
			keep(future, System.nanoTime() - BASE + timeout.toNanos(), failure);
			return future;
		}
		ScheduledFuture<?> timer = scheduler().schedule(() -> fail(future, failure), Instant.now().plus(timeout));
		future.whenComplete((result, ex) -> timer.cancel(false));
		return future;
	}

	/**
	 * Fail a call whose answer did not come in time: with the failure it is given, or
	 * with what making that failure threw, so that it always completes.
	 */
	private static void fail(CompletableFuture<?> future, Supplier<? extends Throwable> failure) {
		Throwable cause;
		try {
			cause = failure.get();
		}
		catch (Throwable ex) {
			cause = ex;
		}
		future.completeExceptionally(cause);
	}

	/**
	 * Keep a timeout in its slot: the first slot that ends at or after the deadline
	 * (counted from {@link #BASE}).
	 */
	private static void keep(CompletableFuture<?> future, long deadline, Supplier<? extends Throwable> failure) {
		lastKept = System.nanoTime();
		while (true) {
			long index = Math.floorDiv(deadline, TICK_NANOS) + 1;
			Slot slot = slots.computeIfAbsent(index, (key) -> new Slot());
			slot.timeouts.put(future, failure);
			if (!slot.fired) {
				keptCount.incrementAndGet();
				future.whenComplete((result, ex) -> {
					if (slot.timeouts.remove(future) != null) {
						keptCount.decrementAndGet();
					}
				});
				break;
			}
			// The tick took the slot meanwhile (this thread was held up past the
			// deadline's slot): it may or may not have seen this timeout.
			slot.timeouts.remove(future);
			if (System.nanoTime() - BASE - deadline >= 0) {
				fail(future, failure);
				return;
			}
		}
		startTicking();
	}

	/**
	 * Start the tick unless it runs: one task at a fixed delay, which nothing has to
	 * schedule again (a failure to schedule reaches the caller that kept a timeout, and
	 * the next one tries again).
	 */
	private static void startTicking() {
		ScheduledFuture<?> running = tickTask;
		if (ticking.get() && running != null && !running.isDone()) {
			return;
		}
		synchronized (tickLock) {
			running = tickTask;
			if (ticking.get() && running != null && !running.isDone()) {
				return;
			}
			// Not started, stopped, or ended without stopping itself (its scheduler shut
			// down): start it.
			ticking.set(true);
			try {
				tickTask = scheduler().scheduleWithFixedDelay(AsyncTimeouts::tick, Instant.now().plusNanos(TICK_NANOS),
						Duration.ofNanos(TICK_NANOS));
			}
			catch (RuntimeException | Error ex) {
				ticking.set(false);
				tickTask = null;
				throw ex;
			}
		}
	}

	/**
	 * Fail the timeouts whose slot has ended; stop once none is kept and none came within
	 * {@link #LINGER_NANOS}.
	 */
	private static void tick() {
		long now = System.nanoTime();
		try {
			fire(Math.floorDiv(now - BASE, TICK_NANOS));
		}
		catch (RuntimeException | Error ex) {
			// (The next tick goes on where this one stopped.)
		}
		if (keptCount.get() == 0 && now - lastKept >= LINGER_NANOS) {
			synchronized (tickLock) {
				ScheduledFuture<?> task = tickTask;
				ticking.set(false);
				tickTask = null;
				if (task != null) {
					task.cancel(false);
				}
			}
			// Slots left empty (their calls answered) stay until a later tick passes
			// them; nothing is kept in them.
			if (keptCount.get() > 0) {
				// Kept meanwhile (its keeper found the tick still running).
				startTicking();
			}
		}
	}

	private static void fire(long current) {
		while (true) {
			Map.Entry<Long, Slot> first = slots.firstEntry();
			if (first == null || first.getKey() > current) {
				break;
			}
			Slot slot = first.getValue();
			slot.fired = true;
			slots.remove(first.getKey(), slot);
			for (Map.Entry<CompletableFuture<?>, Supplier<? extends Throwable>> timeout : slot.timeouts.entrySet()) {
				fail(timeout.getKey(), timeout.getValue());
			}
		}
	}

	/**
	 * The timeouts of one slot; once fired, the tick has taken it and keeps nothing more
	 * in it.
	 */
	private static final class Slot {

		final Map<CompletableFuture<?>, Supplier<? extends Throwable>> timeouts = new ConcurrentHashMap<>();

		volatile boolean fired;

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
