package io.github.redislock.test.support;

import java.time.Duration;

import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.support.CurrentLocks;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An inline run on a thread whose only hold is one whose fixed lease ran out is not
 * refused: the lock is free in Redis, and a task taking it on this thread takes it
 * afresh, as a worker would (the hostile review of the kit's refusal proved it refused).
 */
@WithRedis
@SpringBootTest(classes = KitReviewApp.class,
		properties = { "redislock.queue.workers=0", "redislock.key-prefix=kit-false-refusal:" })
class InlineRunLapsedHoldTests {

	@Autowired
	private RedisLockTemplate locks;

	@Autowired
	private KitReviewApp.GuardedMailer mailer;

	@Autowired
	private KitReviewApp.Guarded guarded;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void anInlineRunAfterAHoldWhoseLeaseRanOutRunsTheTask() throws Exception {
		RedisLock lock = this.locks.getLock("guarded:expired@example.com");
		// A test that lets a lease run out (to show that the lock frees itself) and does
		// not unlock: nothing to unlock any more.
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
		Thread.sleep(1500);
		try {
			assertThat(lock.isLocked()).as("the lock in Redis").isFalse();
			assertThat(CurrentLocks.innermost().isHeld()).as("the thread's hold").isFalse();
			this.mailer.send("expired@example.com");
			assertThat(this.queues.runQueuedTasks("guarded")).isEqualTo(1);
			assertThat(this.guarded.sent()).containsExactly("expired@example.com");
		}
		finally {
			try {
				lock.unlock();
			}
			catch (RuntimeException ex) {
				// lost: nothing to release
			}
		}
	}

}
