package io.github.redislock.test.support;

import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.support.KitTestApplication.Mailbox;
import io.github.redislock.test.support.KitTestApplication.Mailer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link TaskQueueTestSupport#runQueuedTasks(String)} on an interrupted thread (a
 * preemptive timeout, an interrupt left over by the code under test) claims no task that
 * it then does not run: such a task would wait, claimed by nobody, for its visibility
 * timeout.
 */
@WithRedis
@SpringBootTest(classes = KitTestApplication.class,
		properties = { "redislock.queue.workers=0", "redislock.key-prefix=inline-interrupt-tests:" })
class InlineQueueInterruptTests {

	@Autowired
	private Mailer mailer;

	@Autowired
	private Mailbox mailbox;

	@Autowired
	private TaskQueue queue;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void interruptedCallerTakesNoTaskItCannotRun() {
		// Once, so that the claim's script is loaded (its first call is answered
		// NOSCRIPT).
		assertThat(this.queues.runQueuedTasks("mail")).isZero();
		this.mailer.send("cy@example.com");
		Thread.currentThread().interrupt();
		Throwable thrown;
		boolean interruptKept;
		try {
			thrown = catchThrowable(() -> this.queues.runQueuedTasks("mail"));
			interruptKept = Thread.currentThread().isInterrupted();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(this.queue.size("mail")).as("still waiting, not claimed for nobody").isEqualTo(1);
		assertThat(this.queues.runQueuedTasks("mail")).isEqualTo(1);
		assertThat(this.mailbox.sent()).singleElement().asString().startsWith("cy@example.com on ");
		assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessageContaining("interrupted");
		assertThat(interruptKept).as("the interrupt is kept").isTrue();
	}

}
