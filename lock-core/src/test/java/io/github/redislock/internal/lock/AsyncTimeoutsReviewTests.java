package io.github.redislock.internal.lock;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Review of the coarse answer timeouts of {@link AsyncTimeouts#within} (commit c34e18f):
 * attacks on the slot/tick design. Tests named {@code defect...} failed on c34e18f and
 * pass since the fix (timeouts over an hour scheduled on their own, slots numbered from a
 * base, every call completed whatever its failure supplier throws, a tick whose task
 * ended is started again by the next call); those named {@code survives...} are attacks
 * the change withstood (kept as regression guards).
 */
class AsyncTimeoutsReviewTests {

	// ---------------------------------------------------------------------------------
	// Deadline arithmetic: System.nanoTime() + timeout.toNanos() overflows.
	// ---------------------------------------------------------------------------------

	/**
	 * The longest timeout a Duration can express in nanoseconds (292 years: what Lettuce
	 * itself accepts as a command timeout, and what "no timeout" is often written as).
	 * nanoTime + Long.MAX_VALUE wraps to a negative deadline, whose slot lies far in the
	 * past: the next tick fails the call at once. The old per-call timer
	 * ({@code Instant.now().plus(timeout)}, year 2318) never fired.
	 */
	@Test
	void defectTheLongestTimeoutFiresAtTheNextTickInsteadOfNever() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		long start = System.nanoTime();
		AsyncTimeouts.within(answer, Duration.ofNanos(Long.MAX_VALUE), () -> new TimeoutException("no answer"));
		AtomicLong firedAfterMillis = new AtomicLong(-1);
		answer.whenComplete((r, ex) -> firedAfterMillis.set((System.nanoTime() - start) / 1_000_000));
		try {
			await().during(Duration.ofSeconds(2))
				.atMost(Duration.ofSeconds(3))
				.untilAsserted(() -> assertThat(answer)
					.as("a call with a timeout of 292 years, failed after %d ms", firedAfterMillis.get())
					.isNotDone());
		}
		finally {
			answer.complete("cleanup");
		}
	}

	/**
	 * Any timeout that ends beyond Long.MAX_VALUE on the nanoTime scale wraps: here one
	 * of (Long.MAX_VALUE - now + 1 s) nanoseconds, i.e. just short of 292 years.
	 */
	@Test
	void defectATimeoutWhoseDeadlineWrapsFiresEarly() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		AsyncTimeouts.within(answer, Duration.ofNanos(Long.MAX_VALUE - System.nanoTime() + 1_000_000_000L),
				() -> new TimeoutException("no answer"));
		try {
			await().during(Duration.ofSeconds(2))
				.atMost(Duration.ofSeconds(3))
				.untilAsserted(() -> assertThat(answer).as("a call with a timeout of ~292 years").isNotDone());
		}
		finally {
			answer.complete("cleanup");
		}
	}

	/**
	 * A timeout too long for {@code toNanos()} (300 years) now throws from within()
	 * itself; the old timer took it (Instant arithmetic), the call simply never timed
	 * out.
	 */
	@Test
	void defectATimeoutLongerThan292YearsThrowsArithmeticException() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		Throwable thrown = null;
		try {
			AsyncTimeouts.within(answer, Duration.ofDays(365L * 300), () -> new TimeoutException("no answer"));
		}
		catch (RuntimeException ex) {
			thrown = ex;
		}
		finally {
			answer.complete("cleanup");
		}
		assertThat(thrown).as("within(300 years)").isNull();
	}

	// ---------------------------------------------------------------------------------
	// Failure suppliers that throw.
	// ---------------------------------------------------------------------------------

	/**
	 * One supplier that throws an Error (an OutOfMemoryError while building the
	 * exception, an ExceptionInInitializerError, an AssertionError): fire() catches only
	 * RuntimeException, the Error leaves the loop, and the slot is already removed and
	 * marked fired, so every other call of that slot the loop had not reached yet never
	 * times out: it waits forever. Each old timer was its own task: one bad supplier lost
	 * only its own call.
	 */
	@Test
	void defectAnErrorFromOneFailureSupplierLosesTheOtherTimeoutsOfItsSlot() {
		List<CompletableFuture<String>> good = new ArrayList<>();
		List<CompletableFuture<String>> bad = new ArrayList<>();
		Duration timeout = Duration.ofMillis(1000);
		for (int i = 0; i < 400; i++) {
			CompletableFuture<String> answer = new CompletableFuture<>();
			if (i % 40 == 0) {
				bad.add(answer);
				AsyncTimeouts.within(answer, timeout, () -> {
					throw new OutOfMemoryError("simulated: no room for the timeout's exception");
				});
			}
			else {
				good.add(answer);
				AsyncTimeouts.within(answer, timeout, () -> new TimeoutException("no answer"));
			}
		}
		try {
			await().atMost(Duration.ofSeconds(8))
				.untilAsserted(() -> assertThat(good.stream().filter((f) -> !f.isDone()).count())
					.as("of %d calls with a good supplier, still waiting long after their 1 s timeout", good.size())
					.isZero());
		}
		finally {
			good.forEach((f) -> f.complete("cleanup"));
			bad.forEach((f) -> f.complete("cleanup"));
		}
	}

	/** Control: the same with 900 ms timeouts (one timer each, as before c34e18f). */
	@Test
	void survivesAnErrorFromOneFailureSupplierWithPerCallTimers() {
		List<CompletableFuture<String>> good = new ArrayList<>();
		for (int i = 0; i < 400; i++) {
			CompletableFuture<String> answer = new CompletableFuture<>();
			if (i % 40 == 0) {
				AsyncTimeouts.within(answer, Duration.ofMillis(900), () -> {
					throw new OutOfMemoryError("simulated");
				});
				answer.completeExceptionally(new IllegalStateException("cleanup"));
			}
			else {
				good.add(answer);
				AsyncTimeouts.within(answer, Duration.ofMillis(900), () -> new TimeoutException("no answer"));
			}
		}
		await().atMost(Duration.ofSeconds(8))
			.untilAsserted(() -> assertThat(good).allMatch(CompletableFuture::isCompletedExceptionally));
	}

	/**
	 * A supplier that throws a RuntimeException: the comment says "the next one still
	 * fires", but the call whose supplier threw is itself never completed: it waits
	 * forever (pre-existing with the per-call timer too; not fixed by the rewrite).
	 */
	@Test
	void defectACallWhoseFailureSupplierThrowsNeverCompletes() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		AsyncTimeouts.within(answer, Duration.ofSeconds(1), () -> {
			throw new IllegalStateException("cannot build the timeout's exception");
		});
		try {
			await().atMost(Duration.ofSeconds(6))
				.untilAsserted(() -> assertThat(answer).as("a call past its 1 s timeout").isDone());
		}
		finally {
			answer.complete("cleanup");
		}
	}

	// ---------------------------------------------------------------------------------
	// The tick's rescheduling failing (the scheduler shut down).
	// ---------------------------------------------------------------------------------

	/**
	 * The shared scheduler refuses the tick's reschedule (shut down, or the task could
	 * not be made): tick()'s finally throws before {@code ticking.set(false)}, so
	 * {@code ticking} stays true forever. From then on within() accepts every coarse
	 * timeout silently and none ever fires (startTicking() sees ticking==true). The old
	 * path threw at once from within() (TaskRejectedException), visible to the caller.
	 */
	@Test
	void defectATickThatCannotRescheduleSilentlyDisablesEveryLaterTimeout() throws Exception {
		ThreadPoolTaskScheduler replacement = EngineThreads.scheduler("review-timer", 1);
		CompletableFuture<String> first = new CompletableFuture<>();
		CompletableFuture<String> later = new CompletableFuture<>();
		Throwable thrownByLater = null;
		try (TimerSchedulerSwap swap = TimerSchedulerSwap.to(replacement)) {
			AsyncTimeouts.within(first, Duration.ofSeconds(1), () -> new TimeoutException("first"));
			assertThat(AsyncTimeouts.isTicking()).isTrue();
			// The first tick is scheduled; the scheduler then goes, but lets tasks
			// already
			// scheduled run (its ScheduledThreadPoolExecutor's default policy).
			replacement.getScheduledThreadPoolExecutor().shutdown();
			Thread.sleep(500);
			try {
				AsyncTimeouts.within(later, Duration.ofSeconds(1), () -> new TimeoutException("later"));
			}
			catch (RuntimeException ex) {
				thrownByLater = ex;
			}
			Thread.sleep(2500);
			assertThat(thrownByLater != null || later.isCompletedExceptionally())
				.as("a call kept after the tick could not reschedule: within() threw? %s; timed out? %s (ticking=%s)",
						thrownByLater, later.isDone(), AsyncTimeouts.isTicking())
				.isTrue();
		}
		finally {
			first.complete("cleanup");
			later.complete("cleanup");
		}
	}

	// ---------------------------------------------------------------------------------
	// Attacks the change withstands.
	// ---------------------------------------------------------------------------------

	/**
	 * 100,000 calls in flight at once from 8 threads (the async benchmark keeps 1,000):
	 * each unanswered one fails no earlier than its own deadline and not much later; no
	 * entry and no slot is left behind; the tick stops.
	 */
	@Test
	void survivesABurstOf100kInFlightCallsNoneEarlyNoneLostNoneLeft() throws Exception {
		int threads = 8;
		int perThread = 12_500;
		int total = threads * perThread;
		AtomicLongArray keptAt = new AtomicLongArray(total);
		AtomicLongArray firedAt = new AtomicLongArray(total);
		@SuppressWarnings("unchecked")
		CompletableFuture<String>[] answers = new CompletableFuture[total];
		List<Thread> keepers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int base = t * perThread;
			Thread keeper = new Thread(() -> {
				for (int i = base; i < base + perThread; i++) {
					int index = i;
					CompletableFuture<String> answer = new CompletableFuture<>();
					answers[index] = answer;
					long timeoutMillis = 1000 + (index % 300);
					keptAt.set(index, System.nanoTime());
					AsyncTimeouts.within(answer, Duration.ofMillis(timeoutMillis),
							() -> new TimeoutException("no answer"));
					answer.whenComplete((r, ex) -> firedAt.set(index, System.nanoTime()));
					if (index % 2 == 0) {
						// Half are answered in time, from another thread than the keeper.
						CompletableFuture.runAsync(() -> answer.complete("answered"));
					}
					if (index % 1000 == 0) {
						Thread.yield();
					}
				}
			});
			keepers.add(keeper);
			keeper.start();
		}
		for (Thread keeper : keepers) {
			keeper.join(60_000);
		}
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(answers).allMatch(CompletableFuture::isDone));
		long earliestMarginNanos = Long.MAX_VALUE;
		long latestNanos = 0;
		int timedOut = 0;
		for (int i = 0; i < total; i++) {
			if (answers[i].isCompletedExceptionally()) {
				timedOut++;
				long took = firedAt.get(i) - keptAt.get(i);
				long timeoutNanos = Duration.ofMillis(1000 + (i % 300)).toNanos();
				earliestMarginNanos = Math.min(earliestMarginNanos, took - timeoutNanos);
				latestNanos = Math.max(latestNanos, took - timeoutNanos);
			}
		}
		System.out.printf("burst: %d timed out; earliest margin %d us, latest %d ms late%n", timedOut,
				earliestMarginNanos / 1000, latestNanos / 1_000_000);
		// The unanswered half all timed out; some of the answered half may have timed out
		// too (their answer, on the common pool, came after their deadline: fine).
		for (int i = 1; i < total; i += 2) {
			assertThat(answers[i]).isCompletedExceptionally();
		}
		assertThat(timedOut).isGreaterThanOrEqualTo(total / 2);
		assertThat(earliestMarginNanos).as("a timeout fired before its deadline (ns)").isGreaterThanOrEqualTo(0);
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(AsyncTimeouts.kept()).isZero());
		await().atMost(Duration.ofSeconds(15)).until(() -> !AsyncTimeouts.isTicking());
		// The tick stops once nothing is kept: slots left empty whose end had not come
		// then stay until a later tick passes them, at most those of the last timeouts'
		// spread beyond the linger (1.3 s - 1 s here).
		assertThat(slots().size()).as("empty slots left").isLessThanOrEqualTo(14);
	}

	/**
	 * Keepers descheduled between reading the clock and keeping (simulated by calling
	 * with a timeout whose slot the tick is firing right now): repeatedly keep calls of
	 * exactly 1 s from threads that sleep a random sub-tick time between calls, while the
	 * tick starts and stops: none is lost, none fires early.
	 */
	@Test
	void survivesKeepersThatComeAndGoAcrossTheTicksLingerAndStop() throws Exception {
		List<CompletableFuture<String>> unanswered = new ArrayList<>();
		List<long[]> times = new ArrayList<>();
		for (int round = 0; round < 6; round++) {
			for (int i = 0; i < 50; i++) {
				CompletableFuture<String> answer = new CompletableFuture<>();
				long[] at = new long[] { System.nanoTime(), 0 };
				AsyncTimeouts.within(answer, Duration.ofSeconds(1), () -> new TimeoutException("no answer"));
				answer.whenComplete((r, ex) -> at[1] = System.nanoTime());
				unanswered.add(answer);
				times.add(at);
				Thread.sleep(i % 7);
			}
			// Let the tick go quiet (nothing kept, a second past the last keep), or
			// almost: the next round races its stop.
			Thread.sleep(1900 + (round * 97) % 400);
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(unanswered).allMatch(CompletableFuture::isCompletedExceptionally));
		for (long[] at : times) {
			assertThat(at[1] - at[0]).isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
		}
	}

	@SuppressWarnings("unchecked")
	private static Map<Long, ?> slots() throws Exception {
		Field field = AsyncTimeouts.class.getDeclaredField("slots");
		field.setAccessible(true);
		return (Map<Long, ?>) field.get(null);
	}

}
