package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The answer timeouts of asynchronous calls: those of a second or more are kept in slots
 * of 100 ms and failed by one tick (no timer of their own), never before their timeout
 * and at most a tick late; an answered call's timeout goes at once; none is lost when
 * many threads keep and answer calls at once; the tick stops once nothing is kept.
 */
class AsyncTimeoutsTests {

	@Test
	void aCoarseTimeoutFiresNoEarlierThanItsTimeoutAndAboutATickLate() throws Exception {
		CompletableFuture<String> answer = new CompletableFuture<>();
		long start = System.nanoTime();
		AsyncTimeouts.within(answer, Duration.ofMillis(1200), () -> new TimeoutException("no answer"));
		await().atMost(Duration.ofSeconds(10)).until(answer::isDone);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(answer).isCompletedExceptionally();
		assertThat(took).as("fired after").isGreaterThanOrEqualTo(Duration.ofMillis(1200));
		assertThat(took).as("fired after (a tick is 100 ms; generous for a busy machine)")
			.isLessThan(Duration.ofMillis(1200 + 1500));
	}

	@Test
	void aShortTimeoutStillFiresOnTime() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		long start = System.nanoTime();
		AsyncTimeouts.within(answer, Duration.ofMillis(150), () -> new TimeoutException("no answer"));
		await().atMost(Duration.ofSeconds(10)).until(answer::isDone);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
	}

	@Test
	void manyThreadsKeepingAndAnsweringLoseNoTimeoutAndLeaveNoneBehind() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<List<CompletableFuture<String>>>> unansweredPerThread = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				unansweredPerThread.add(threads.submit(() -> {
					List<CompletableFuture<String>> unanswered = new ArrayList<>();
					for (int i = 0; i < 20_000; i++) {
						CompletableFuture<String> answer = new CompletableFuture<>();
						// Timeouts spread over 1 to 1.5 s: many slots, some fired while
						// others are kept.
						AsyncTimeouts.within(answer, Duration.ofMillis(1000 + (i % 500)),
								() -> new TimeoutException("no answer"));
						if (i % 100 == 0) {
							unanswered.add(answer);
						}
						else {
							answer.complete("answered");
						}
					}
					return unanswered;
				}));
			}
			List<CompletableFuture<String>> unanswered = new ArrayList<>();
			for (Future<List<CompletableFuture<String>>> part : unansweredPerThread) {
				unanswered.addAll(part.get(60, TimeUnit.SECONDS));
			}
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(unanswered).as("unanswered calls failed by their timeout")
					.allMatch(CompletableFuture::isCompletedExceptionally));
			// The answered calls' timeouts went when they were answered; once the tick
			// has stopped (a second after the last one came), nothing waits.
			await().atMost(Duration.ofSeconds(15))
				.untilAsserted(() -> assertThat(AsyncTimeouts.kept()).as("timeouts left").isZero());
			await().atMost(Duration.ofSeconds(15))
				.untilAsserted(
						() -> assertThat(AsyncTimeouts.isTicking()).as("the tick, with nothing kept for a second")
							.isFalse());
		}
		finally {
			threads.shutdownNow();
		}
	}

}
