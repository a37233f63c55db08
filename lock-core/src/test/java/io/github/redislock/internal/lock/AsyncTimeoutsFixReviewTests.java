package io.github.redislock.internal.lock;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hostile review of the fix commit 609da84 to {@link AsyncTimeouts}. Tests named
 * {@code defect...} failed on 609da84 and pass since the fix (the tick one task at a
 * fixed delay, an Error starting it reaches the caller and the next call tries again, the
 * kept timeouts counted); {@code survives...} are attacks it withstood.
 */
class AsyncTimeoutsFixReviewTests {

	/**
	 * A scheduler whose schedule(Runnable, Instant) throws on chosen calls (counted from
	 * 1), then works again: a transient failure (an OutOfMemoryError making the task, a
	 * StackOverflowError of a deep caller).
	 */
	static final class FailingScheduler extends ThreadPoolTaskScheduler {

		final AtomicInteger calls = new AtomicInteger();

		final int failingCall;

		final Throwable failure;

		FailingScheduler(int failingCall, Throwable failure) {
			this.failingCall = failingCall;
			this.failure = failure;
			setPoolSize(1);
			setDaemon(true);
			setThreadNamePrefix("review-failing-timer-");
			initialize();
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
			if (this.calls.incrementAndGet() == this.failingCall) {
				if (this.failure instanceof Error error) {
					throw error;
				}
				throw (RuntimeException) this.failure;
			}
			return super.schedule(task, startTime);
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
			if (this.calls.incrementAndGet() == this.failingCall) {
				if (this.failure instanceof Error error) {
					throw error;
				}
				throw (RuntimeException) this.failure;
			}
			return super.scheduleWithFixedDelay(task, startTime, delay);
		}

	}

	private static Field field(String name) throws Exception {
		Field field = AsyncTimeouts.class.getDeclaredField(name);
		field.setAccessible(true);
		return field;
	}

	/**
	 * startTicking() resets {@code ticking} only for a RuntimeException: an Error thrown
	 * while scheduling the first tick (a StackOverflowError of a caller deep in a
	 * CompletableFuture chain, an OutOfMemoryError) leaves {@code ticking == true} with
	 * no tick scheduled. From then on every coarse timeout (1 s .. 1 h) of the JVM is
	 * accepted and never fires: the tick's own catch (RuntimeException | Error) was
	 * fixed, this one was not.
	 */
	@Test
	void defectAnErrorStartingTheTickDisablesEveryLaterCoarseTimeout() throws Exception {
		FailingScheduler failing = new FailingScheduler(1, new StackOverflowError("simulated"));
		CompletableFuture<String> first = new CompletableFuture<>();
		CompletableFuture<String> later = new CompletableFuture<>();
		Throwable thrown = null;
		try (TimerSchedulerSwap swap = TimerSchedulerSwap.to(failing)) {
			try {
				AsyncTimeouts.within(first, Duration.ofSeconds(1), () -> new TimeoutException("first"));
			}
			catch (StackOverflowError ex) {
				thrown = ex;
			}
			assertThat(thrown).as("the caller learns of the Error").isNotNull();
			// The scheduler works again (calls 2, 3, ...): a later call should start the
			// tick.
			AsyncTimeouts.within(later, Duration.ofSeconds(1), () -> new TimeoutException("later"));
			await().atMost(Duration.ofSeconds(4))
				.untilAsserted(() -> assertThat(later)
					.as("a 1 s timeout kept after an Error starting the tick (ticking=%s, schedule calls=%d)",
							AsyncTimeouts.isTicking(), failing.calls.get())
					.isCompletedExceptionally());
		}
		finally {
			first.complete("cleanup");
			later.complete("cleanup");
		}
	}

	/**
	 * On 609da84 a tick that could not reschedule itself once (a transient Error: the
	 * scheduler works again right after) reset {@code ticking} and rethrew: the timeouts
	 * already kept then waited for "the next timeout kept" to restart the tick, and when
	 * none came the call never timed out. The tick is now one task at a fixed delay: it
	 * is scheduled once (the failure at the second call below is never reached) and the
	 * only timeout kept fires.
	 */
	@Test
	void aTickIsScheduledOnceAndCannotStrandTheTimeoutsKept() throws Exception {
		// Call 1: the first tick (from startTicking); call 2: its reschedule, which
		// fails.
		FailingScheduler failing = new FailingScheduler(2, new OutOfMemoryError("simulated: unable to create task"));
		CompletableFuture<String> answer = new CompletableFuture<>();
		try (TimerSchedulerSwap swap = TimerSchedulerSwap.to(failing)) {
			AsyncTimeouts.within(answer, Duration.ofSeconds(1), () -> new TimeoutException("no answer"));
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(answer)
					.as("a 1 s timeout, the only one kept, after one failed reschedule (ticking=%s, kept=%d,"
							+ " schedule calls=%d)", AsyncTimeouts.isTicking(), AsyncTimeouts.kept(),
							failing.calls.get())
					.isCompletedExceptionally());
			assertThat(failing.calls.get()).as("schedule calls for the tick").isEqualTo(1);
		}
		finally {
			answer.complete("cleanup");
		}
	}

	/**
	 * The cost of the new stop condition: kept() walks every slot (and sums each slot's
	 * map) on every tick, 10 times a second. Slots left empty by answered calls stay
	 * until the tick passes them, so with a command timeout of an hour (COARSE_MAX) and
	 * steady traffic there are up to 36,000 of them. Measured: the timer thread's CPU per
	 * second with 36,000 empty slots against none, under the same trickle of calls (one
	 * every 100 ms, answered at once). slots.isEmpty() (c34e18f) was O(1).
	 */
	@Test
	void defectKeptWalksEverySlotOnEveryTick() throws Exception {
		await().atMost(Duration.ofSeconds(90)).until(() -> !AsyncTimeouts.isTicking());
		long idle = timerCpuNanosPerSecond();
		// Answered calls with timeouts of 1 s .. 1 h, one per slot: empty slots left.
		List<CompletableFuture<String>> answered = new ArrayList<>();
		for (int i = 0; i < 36_000; i++) {
			CompletableFuture<String> answer = new CompletableFuture<>();
			AsyncTimeouts.within(answer, Duration.ofMillis(1000 + 100L * i), () -> new TimeoutException("x"));
			answer.complete("answered");
		}
		assertThat(AsyncTimeouts.kept()).isZero();
		int slots = ((java.util.Map<?, ?>) field("slots").get(null)).size();
		long loaded = timerCpuNanosPerSecond();
		long start = System.nanoTime();
		for (int i = 0; i < 100; i++) {
			AsyncTimeouts.kept();
		}
		long perKept = (System.nanoTime() - start) / 100;
		System.out.printf(
				"kept(): %d empty slots, %d us per call; timer thread CPU %d us/s with them," + " %d us/s without%n",
				slots, perKept / 1000, loaded / 1000, idle / 1000);
		assertThat(loaded)
			.as("timer thread CPU per second with %d empty slots (%d us/s without; kept() %d us)", slots, idle / 1000,
					perKept / 1000)
			.isLessThan(Math.max(2 * idle, 1_000_000));
	}

	/** The timer thread's CPU over 3 s of one call every 100 ms, answered at once. */
	private static long timerCpuNanosPerSecond() throws Exception {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		// Make sure the timer thread exists.
		CompletableFuture<String> warm = new CompletableFuture<>();
		AsyncTimeouts.within(warm, Duration.ofSeconds(1), () -> new TimeoutException("warm"));
		warm.complete("answered");
		Thread.sleep(300);
		long id = -1;
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			if (thread.getName().startsWith("redislock-async-timer")) {
				id = thread.getId();
			}
		}
		assertThat(id).isNotEqualTo(-1);
		long before = threads.getThreadCpuTime(id);
		for (int i = 0; i < 30; i++) {
			CompletableFuture<String> answer = new CompletableFuture<>();
			AsyncTimeouts.within(answer, Duration.ofSeconds(1), () -> new TimeoutException("x"));
			answer.complete("answered");
			Thread.sleep(100);
		}
		return (threads.getThreadCpuTime(id) - before) / 3;
	}

	/**
	 * The new stop condition raced: keepers keep calls of 1 s, each followed by a pause
	 * that makes the tick stop and restart (just over the 1 s linger, give or take), on
	 * several threads; none is lost, none fires early, none late by more than a couple of
	 * ticks.
	 */
	@Test
	void survivesKeepsRacingTheTicksStopAndRecheck() throws Exception {
		List<CompletableFuture<String>> calls = java.util.Collections.synchronizedList(new ArrayList<>());
		List<long[]> times = java.util.Collections.synchronizedList(new ArrayList<>());
		List<Thread> keepers = new ArrayList<>();
		for (int t = 0; t < 4; t++) {
			int seed = t;
			Thread keeper = new Thread(() -> {
				java.util.Random random = new java.util.Random(seed);
				for (int i = 0; i < 6; i++) {
					CompletableFuture<String> answer = new CompletableFuture<>();
					long[] at = { System.nanoTime(), 0 };
					AsyncTimeouts.within(answer, Duration.ofSeconds(1), () -> new TimeoutException("x"));
					answer.whenComplete((r, ex) -> at[1] = System.nanoTime());
					calls.add(answer);
					times.add(at);
					try {
						Thread.sleep(2000 + random.nextInt(300) - 150);
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			});
			keepers.add(keeper);
			keeper.start();
		}
		for (Thread keeper : keepers) {
			keeper.join();
		}
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(calls).allMatch(CompletableFuture::isCompletedExceptionally));
		long latest = 0;
		for (long[] at : times) {
			assertThat(at[1] - at[0]).isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
			latest = Math.max(latest, at[1] - at[0]);
		}
		assertThat(latest).isLessThan(Duration.ofMillis(1500).toNanos());
	}

}
