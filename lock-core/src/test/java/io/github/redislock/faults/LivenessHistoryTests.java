package io.github.redislock.faults;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The liveness checker finds planted violations and accepts sound histories.
 */
class LivenessHistoryTests {

	private static final long BOUND = 2_000_000;

	@Test
	void waiterThatSleepsThroughAFreeLockIsAViolation() {
		LivenessHistory history = new LivenessHistory();
		history.held("l", 0, 1_000_000);
		history.waited("w", "l", 500_000, 6_000_000, "timeout");
		assertThat(history.violations(BOUND)).singleElement()
			.satisfies((violation) -> assertThat(violation).contains("free for 5000 ms"));
	}

	@Test
	void waiterThatGetsTheLockSoonAfterItIsFreeIsSound() {
		LivenessHistory history = new LivenessHistory();
		history.held("l", 0, 1_000_000);
		history.waited("w", "l", 500_000, 1_200_000, "acquired");
		history.held("l", 500_000, 3_000_000);
		assertThat(history.violations(BOUND)).isEmpty();
	}

	@Test
	void gapBetweenHoldsLongerThanTheBoundIsAViolation() {
		LivenessHistory history = new LivenessHistory();
		history.held("l", 0, 1_000_000);
		history.held("l", 4_000_000, 5_000_000);
		history.waited("w", "l", 100_000, 4_500_000, "acquired");
		assertThat(history.violations(BOUND)).hasSize(1);
		assertThat(new LivenessHistory().violations(BOUND)).isEmpty();
	}

	@Test
	void holdsOfOtherLocksDoNotCount() {
		LivenessHistory history = new LivenessHistory();
		history.held("other", 0, 10_000_000);
		history.waited("w", "l", 0, 3_000_000, "timeout");
		assertThat(history.violations(BOUND)).hasSize(1);
	}

	@Test
	void aSemaphoreIsNotFreeWhileItsServerIsUnavailable() {
		LivenessHistory history = new LivenessHistory();
		history.capacity("s", 2);
		// One permit held before and during the outage, none after it.
		history.held("s", 0, 2_000_000);
		history.unavailable("s", 1_000_000, 6_000_000, "frozen");
		history.waited("w", "s", 500_000, 6_500_000, "acquired");
		assertThat(history.violations(BOUND)).isEmpty();
		history.waited("w", "s", 500_000, 9_000_000, "timeout");
		assertThat(history.violations(BOUND)).singleElement()
			.satisfies((violation) -> assertThat(violation).contains("free for 3000 ms"));
	}

}
