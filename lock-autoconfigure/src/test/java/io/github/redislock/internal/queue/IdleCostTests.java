package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.test.CommandCounter;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An idle instance costs Redis the same whatever its number of queues: it looks at each
 * of its N idle queues every N poll intervals, one look per poll interval in all; tasks
 * due now, and delayed tasks falling due before the next look, still start at once, woken
 * by their notification.
 */
@ExtendWith(RedisExtension.class)
class IdleCostTests {

	static final Map<String, Long> STARTED = new ConcurrentHashMap<>();

	private final LocalRedisServer redis;

	private final ApplicationContextRunner runner;

	IdleCostTests(RedisServers servers) {
		this.redis = servers.start();
		this.runner = LockApplicationContextRunner.on(this.redis)
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("idle.prefix=idle-" + UUID.randomUUID(), "redislock.queue.poll-interval=1s",
					"redislock.queue.workers=1")
			.withBean(TwentyQueues.class);
	}

	@Test
	void anIdleInstanceWithTwentyQueuesLooksOncePerPollIntervalAndStillStartsTasksAtOnce() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			CommandCounter counter = new CommandCounter(this.redis);
			// Every queue looked once at start, and again when the subscription is made
			// (notifications sent before it were lost): on a starved machine that can be
			// seconds later, so the count starts after it. Then the instance idles.
			await().atMost(Duration.ofSeconds(20)).until(() -> this.redis.pubSubClientIds().size() == 1);
			Thread.sleep(1500);
			long before = counter.calls("evalsha", "eval");
			Thread.sleep(6000);
			long looks = counter.calls("evalsha", "eval") - before;
			// One look per second in all (a queue every 20 s), with room for a slow
			// machine; looking at each queue every poll interval would be ~120.
			assertThat(looks).as("script calls of an idle instance with 20 queues in 6 s").isLessThanOrEqualTo(20);
			TwentyQueues queues = context.getBean(TwentyQueues.class);
			String now = "now-" + UUID.randomUUID();
			long sent = System.nanoTime();
			queues.q7(now);
			await().atMost(Duration.ofSeconds(10)).until(() -> STARTED.containsKey(now));
			assertThat(Duration.ofNanos(STARTED.get(now) - sent)).as("woken by the notification, not the 20 s look")
				.isLessThan(Duration.ofSeconds(5));
			String delayed = "delayed-" + UUID.randomUUID();
			sent = System.nanoTime();
			queues.q13(delayed);
			await().atMost(Duration.ofSeconds(15)).until(() -> STARTED.containsKey(delayed));
			assertThat(Duration.ofNanos(STARTED.get(delayed) - sent)).as("due in 1 s: woken for it, not the 20 s look")
				.isBetween(Duration.ofMillis(900), Duration.ofSeconds(6));
		});
	}

	static class TwentyQueues {

		@QueuedTask(queue = "${idle.prefix}-0")
		public void q0(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-1")
		public void q1(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-2")
		public void q2(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-3")
		public void q3(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-4")
		public void q4(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-5")
		public void q5(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-6")
		public void q6(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-7")
		public void q7(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-8")
		public void q8(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-9")
		public void q9(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-10")
		public void q10(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-11")
		public void q11(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-12")
		public void q12(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-13", delay = "1s")
		public void q13(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-14")
		public void q14(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-15")
		public void q15(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-16")
		public void q16(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-17")
		public void q17(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-18")
		public void q18(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${idle.prefix}-19")
		public void q19(String id) {
			ran(id);
		}

		private static void ran(String id) {
			STARTED.putIfAbsent(id, System.nanoTime());
		}

	}

}
