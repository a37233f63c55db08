package io.github.redislock.test.support;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * From the hostile review of #33 (it failed in round 4 of 60 before awaitAllDrained
 * wanted two empty passes in a row): awaitAllDrained reads the queues one after the other
 * (admin().queues(): one DEPTHS call per queue, in name order). A task of a later queue
 * that hands off to an earlier one between the two reads is seen by neither:
 * awaitAllDrained returns while the hand-off still waits. The test of a chained flow
 * (fulfilment, then receipt) is flaky.
 */
@WithRedis
@SpringBootTest(classes = KitReviewApp.class, properties = "redislock.key-prefix=review-drain-race:")
class AwaitAllDrainedHandOffTests {

	@Autowired
	private KitReviewApp.Chain chain;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void awaitAllDrainedDoesNotReturnWhileAHandOffWaits() throws Exception {
		for (int n = 1; n <= 60; n++) {
			this.chain.last(n);
			this.queues.awaitAllDrained(Duration.ofSeconds(20));
			assertThat(this.chain.firstRuns()).as("hand-offs run after awaitAllDrained returned, round " + n)
				.isEqualTo(n);
		}
	}

}
