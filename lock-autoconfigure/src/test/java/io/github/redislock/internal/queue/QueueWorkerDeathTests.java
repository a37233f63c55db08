package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker process killed with SIGKILL between taking a task and finishing it: the task
 * runs again on another instance, nothing is lost, and the dead worker's claim can no
 * longer settle it.
 */
@Tag("slow-fault")
@ExtendWith(RedisExtension.class)
class QueueWorkerDeathTests {

	static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

	private final LocalRedisServer redis;

	private final String queue = "death-" + UUID.randomUUID();

	private final ApplicationContextRunner runner;

	QueueWorkerDeathTests(RedisServers servers) {
		this.redis = servers.start();
		this.runner = LockApplicationContextRunner.on(this.redis)
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("worker.queue=" + this.queue, "redislock.queue.visibility-timeout=2s",
					"redislock.queue.poll-interval=200ms")
			.withBean(Recorder.class);
	}

	@Test
	void taskOfAKilledWorkerProcessRunsAgainElsewhereAndTheDeadClaimIsRefused() {
		StringRedisTemplate raw = this.redis.template();
		String claims = "redislock:queue:{" + this.queue + "}:claims";
		String job = "job-" + UUID.randomUUID();
		try (ChildJvm worker = ChildJvm.start(QueueWorkerProcess.class, Integer.toString(this.redis.port()),
				this.queue)) {
			worker.await("READY", Duration.ofSeconds(60));
			this.runner.withPropertyValues("redislock.queue.workers=0")
				.run((producer) -> producer.getBean(Recorder.class).work(job));
			assertThat(worker.await("RUNNING", Duration.ofSeconds(30))).containsExactly(job);
			String handle = (String) raw.opsForHash().get("redislock:queue:{" + this.queue + "}:running", job);
			String deadClaim = (String) raw.opsForHash().get(claims, handle);
			assertThat(deadClaim).isNotNull();
			worker.kill();
			this.runner.withPropertyValues("redislock.queue.workers=1").run((survivor) -> {
				await().atMost(Duration.ofSeconds(30)).until(() -> RUNS.containsKey(job));
				RedisTaskQueue queue = survivor.getBean(RedisTaskQueue.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> !Boolean.TRUE.equals(raw.hasKey(claims)));
				boolean[] settled = queue.settle(this.queue, "ack", "", 100, Duration.ofDays(1),
						List.of(new RedisTaskQueue.ClaimedTask(this.queue, job, handle, "[\"" + job + "\"]", deadClaim,
								1, "", "")));
				assertThat(settled).containsExactly(false);
				assertThat(queue.size(this.queue)).isZero();
				assertThat(RUNS.get(job)).as("ran once here, after the dead worker's run").hasValue(1);
				// Nothing left but the mark that a worker idles (it expires once none
				// looks).
				assertThat(raw.keys("redislock:queue:{" + this.queue + "}*"))
					.allMatch((key) -> key.endsWith("}:idle") || key.endsWith("}:settled") || key.contains("}:claim:"));
			});
		}
	}

	static class Recorder {

		@QueuedTask(queue = "${worker.queue}", id = "#id")
		public void work(String id) {
			RUNS.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
		}

	}

}
