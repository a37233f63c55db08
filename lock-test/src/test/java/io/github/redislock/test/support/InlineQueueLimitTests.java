package io.github.redislock.test.support;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.QueuedTask;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link TaskQueueTestSupport#runQueuedTasks()} stops tasks that keep enqueueing each
 * other across queues, as {@code runQueuedTasks(queue)} does within one.
 */
@WithRedis
@SpringBootTest(classes = InlineQueueLimitTests.PingPong.class,
		properties = { "redislock.queue.workers=0", "redislock.key-prefix=inline-limit-tests:" })
class InlineQueueLimitTests {

	@Autowired
	private Player player;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void tasksThatEnqueueEachOtherForeverAreStopped() {
		this.player.ping();
		assertThatIllegalStateException().isThrownBy(() -> this.queues.runQueuedTasks())
			.withMessageContaining(Integer.toString(TaskQueueTestSupport.MAX_INLINE_RUNS));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class PingPong {

		@Bean
		Player player(@Lazy Player self) {
			return new Player(self);
		}

	}

	static class Player {

		/**
		 * Ends the game (a bit past the limit), so that a test that fails does not hang.
		 */
		private static final int LAST = TaskQueueTestSupport.MAX_INLINE_RUNS + 20;

		private final AtomicInteger played = new AtomicInteger();

		private final Player self;

		Player(Player self) {
			this.self = self;
		}

		@QueuedTask(queue = "ping")
		public void ping() {
			if (this.played.incrementAndGet() < LAST) {
				this.self.pong();
			}
		}

		@QueuedTask(queue = "pong")
		public void pong() {
			if (this.played.incrementAndGet() < LAST) {
				this.self.ping();
			}
		}

	}

}
