package io.github.redislock.metrics;

import java.time.Duration;
import java.util.UUID;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue meters against a real Redis.
 */
@ExtendWith(RedisExtension.class)
class TaskQueueMetricsTests {

	private final RedisServer redis;

	TaskQueueMetricsTests(RedisServer redis) {
		this.redis = redis;
	}

	@Test
	void enqueuedProcessedDepthAndLagAreMeasuredPerQueue() {
		String queue = "metered-" + UUID.randomUUID();
		LockApplicationContextRunner.on(this.redis)
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class,
					RedisLockMetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(Jobs.class)
			.withPropertyValues("test.queue=" + queue, "redislock.queue.poll-interval=100ms",
					"redislock.queue.max-attempts=1")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				Jobs jobs = context.getBean(Jobs.class);
				jobs.run("ok");
				jobs.run("fail");
				await().atMost(Duration.ofSeconds(20))
					.until(() -> registry.find("redislock.queue.processed")
						.tags("queue", queue)
						.counters()
						.stream()
						.mapToDouble((counter) -> counter.count())
						.sum() == 2);
				assertThat(registry.get("redislock.queue.enqueued").tags("queue", queue).counter().count())
					.isEqualTo(2);
				assertThat(registry.get("redislock.queue.processed")
					.tags("queue", queue, "outcome", "success")
					.counter()
					.count()).isEqualTo(1);
				assertThat(registry.get("redislock.queue.processed")
					.tags("queue", queue, "outcome", "dead")
					.counter()
					.count()).isEqualTo(1);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> registry.get("redislock.queue.depth")
						.tags("queue", queue, "state", "dead")
						.gauge()
						.value() == 1);
				context.getBean(TaskQueue.class).enqueue(queue, "later", "x", Duration.ofMinutes(5));
				await().atMost(Duration.ofSeconds(5))
					.until(() -> registry.get("redislock.queue.depth")
						.tags("queue", queue, "state", "delayed")
						.gauge()
						.value() == 1);
				assertThat(registry.get("redislock.queue.depth").tags("queue", queue, "state", "ready").gauge().value())
					.isZero();
				assertThat(registry.get("redislock.queue.lag").tags("queue", queue).gauge().value()).isZero();
			});
	}

	static class Jobs {

		@QueuedTask(queue = "${test.queue}", id = "#name")
		public void run(String name) {
			if (name.equals("fail")) {
				throw new IllegalStateException("fails on purpose");
			}
		}

	}

}
