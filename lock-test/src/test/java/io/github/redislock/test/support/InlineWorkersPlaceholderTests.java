package io.github.redislock.test.support;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @QueuedTask} with its own {@code workers} keeps them under
 * {@code redislock.queue.workers=0} (the hostile review of #33 found its workers taking
 * the task the test meant to run inline); written as a placeholder, as docs/testing.md
 * says, the test sets it to 0 and runs the task on its own thread.
 */
@WithRedis
@SpringBootTest(classes = KitReviewApp.class,
		properties = { "redislock.queue.workers=0", "busy.workers=0", "redislock.key-prefix=inline-workers:" })
class InlineWorkersPlaceholderTests {

	@Autowired
	private KitReviewApp.Busy busy;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void aTasksOwnWorkersSetToZeroByItsPlaceholderLeaveItToTheTest() throws Exception {
		this.busy.work("one");
		// Long enough for a worker, had there been one, to take it (its first look is
		// at once).
		Thread.sleep(1000);
		assertThat(this.busy.ranOn()).as("ran on a worker thread").isEmpty();
		assertThat(this.queues.runQueuedTasks("busy")).isEqualTo(1);
		assertThat(this.busy.ranOn()).containsExactly(Thread.currentThread().getName());
	}

}
