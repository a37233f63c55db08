package io.github.redislock.test.support;

import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * An inline run on a thread that holds a lock is refused, naming the lock, and takes no
 * task: locks are re-entrant per thread, so a task taking that lock would have run under
 * it (the hostile review of #33 proved it delivered while the test held the lock), where
 * a worker waits for it. Once the lock is released the task runs.
 */
@WithRedis
@SpringBootTest(classes = KitReviewApp.class,
		properties = { "redislock.queue.workers=0", "redislock.key-prefix=inline-held-lock:" })
class InlineRunHeldLockTests {

	@Autowired
	private RedisLockTemplate locks;

	@Autowired
	private KitReviewApp.GuardedMailer mailer;

	@Autowired
	private KitReviewApp.Guarded guarded;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void anInlineRunOnAThreadHoldingALockIsRefusedAndTakesNothing() {
		this.mailer.send("ann@example.com");
		RedisLock lock = this.locks.getLock("guarded:ann@example.com");
		lock.lock();
		try {
			assertThatIllegalStateException().isThrownBy(() -> this.queues.runQueuedTasks("guarded"))
				.withMessageContaining("holds the lock 'guarded:ann@example.com'")
				.withMessageContaining("no task was taken");
			assertThatIllegalStateException().isThrownBy(() -> this.queues.runQueuedTasks())
				.withMessageContaining("holds the lock");
			assertThat(this.guarded.sent()).isEmpty();
		}
		finally {
			lock.unlock();
		}
		assertThat(this.queues.runQueuedTasks("guarded")).isEqualTo(1);
		assertThat(this.guarded.sent()).containsExactly("ann@example.com");
	}

}
