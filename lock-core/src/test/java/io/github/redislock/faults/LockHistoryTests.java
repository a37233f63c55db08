package io.github.redislock.faults;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker catches each planted violation and passes a sound history.
 */
class LockHistoryTests {

	@Test
	void soundHistoryHasNoViolations() {
		LockHistory history = new LockHistory();
		history.held("a", "l", 10, 0, 100);
		history.held("b", "l", 11, 100, 200);
		history.held("a", "other", 5, 50, 150);
		history.accepted("r", "a", 10);
		history.accepted("r", "a", 10);
		history.accepted("r", "b", 11);
		assertThat(history.violations()).isEmpty();
	}

	@Test
	void catchesOverlappingHolds() {
		LockHistory history = new LockHistory();
		history.held("a", "l", 10, 0, 100);
		history.held("b", "l", 11, 99, 200);
		assertThat(history.violations()).singleElement().asString().contains("overlap by 1us");
	}

	@Test
	void catchesTokensThatDoNotIncrease() {
		LockHistory history = new LockHistory();
		history.held("a", "l", 10, 0, 100);
		history.held("b", "l", 10, 150, 200);
		history.held("c", "l", 9, 250, 300);
		assertThat(history.violations()).hasSize(3).allMatch((violation) -> violation.contains("did not increase"));
	}

	@Test
	void sharedHoldsMayOverlapEachOtherButNotAnExclusiveOne() {
		LockHistory history = new LockHistory();
		history.heldShared("a", "l", 10, 0, 100);
		history.heldShared("b", "l", 9, 50, 150);
		assertThat(history.violations()).isEmpty();
		history.held("c", "l", 11, 120, 200);
		assertThat(history.violations()).singleElement().asString().contains("overlap by 30us");
	}

	@Test
	void catchesAnOlderTokenAcceptedAfterANewerOne() {
		LockHistory history = new LockHistory();
		history.accepted("r", "b", 11);
		history.accepted("r", "a", 10);
		assertThat(history.violations()).singleElement().asString().contains("older token after a newer one");
	}

	@Test
	void catchesAHoldThatEndsBeforeItStarts() {
		LockHistory history = new LockHistory();
		history.held("a", "l", 10, 100, 50);
		assertThat(history.violations()).singleElement().asString().contains("ends before it starts");
	}

}
