package io.github.redislock.test.support;

import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.support.KitTestApplication.Mailbox;
import io.github.redislock.test.support.KitTestApplication.Mailer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Queued tasks run on the test's thread when the test says so, with the locks on: no
 * worker threads ({@code redislock.queue.workers=0}) and
 * {@link TaskQueueTestSupport#runQueuedTasks(String)}. Its own key prefix keeps the
 * workers of the other classes' cached contexts, on the same Redis, off its queues.
 */
@WithRedis
@SpringBootTest(classes = KitTestApplication.class,
		properties = { "redislock.queue.workers=0", "redislock.key-prefix=inline-tests:" })
class InlineQueueTests {

	@Autowired
	private Mailer mailer;

	@Autowired
	private Mailbox mailbox;

	@Autowired
	private TaskQueue queue;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void queuedTasksRunOnTheCallingThreadUnderTheirLocksWhenAsked() {
		this.mailer.send("ann@example.com");
		this.mailer.send("bob@example.com");
		assertThat(this.queue.size("mail")).as("waiting: no worker takes them").isEqualTo(2);
		assertThat(this.mailbox.sent()).isEmpty();
		assertThat(this.queues.runQueuedTasks("mail")).isEqualTo(2);
		String thread = Thread.currentThread().getName();
		assertThat(this.mailbox.sent()).containsExactlyInAnyOrder(
				"ann@example.com on " + thread + " under mailbox:ann@example.com",
				"bob@example.com on " + thread + " under mailbox:bob@example.com");
		assertThat(this.queue.size("mail")).isZero();
		assertThat(this.queues.runQueuedTasks()).isZero();
	}

	@Test
	void failedInlineRunIsSettledAsAWorkersRunWouldBe() {
		this.mailer.bounce("nobody@example.com");
		assertThat(this.queues.runQueuedTasks("bounces")).isEqualTo(1);
		assertThat(this.queue.size("bounces")).isZero();
		assertThatIllegalStateException().isThrownBy(() -> this.queues.runQueuedTasks("nowhere"))
			.withMessageContaining("queue 'nowhere'")
			.withMessageContaining("[bounces, mail]");
	}

}
