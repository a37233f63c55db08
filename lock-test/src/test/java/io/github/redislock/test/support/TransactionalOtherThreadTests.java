package io.github.redislock.test.support;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Transactional} test (for its database) whose task was enqueued outside its
 * transaction (on another thread: a request served by the application's web server, a
 * message listener, an {@code @Async} method) is waited for: the kit refuses only when
 * the test's transaction holds a {@code @QueuedTask} call back (the hostile review of the
 * kit's refusal proved it refused here).
 */
@WithRedis
@Transactional
@SpringBootTest(classes = { KitReviewApp.class, TransactionalTestRefusalTests.Transactions.class },
		properties = { "redislock.key-prefix=kit-tx-other-thread:" })
class TransactionalOtherThreadTests {

	@Autowired
	private KitReviewApp.GuardedMailer mailer;

	@Autowired
	private KitReviewApp.Guarded guarded;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void aTaskEnqueuedOutsideTheTestsTransactionIsAwaited() {
		CompletableFuture.runAsync(() -> this.mailer.send("other-thread@example.com")).join();
		this.queues.awaitDrained("guarded", Duration.ofSeconds(20));
		assertThat(this.guarded.sent()).contains("other-thread@example.com");
	}

}
