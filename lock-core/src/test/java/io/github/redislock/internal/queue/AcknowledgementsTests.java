package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acknowledgements of finished tasks go to Redis in groups: those queued while another is
 * under way leave together in one script call, and each worker still learns whether its
 * own claim held.
 */
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class AcknowledgementsTests {

	private static final QueueSettings SETTINGS = QueueSettings.builder()
		.workers(1)
		.pollInterval(Duration.ofSeconds(1))
		.batchSize(100)
		.visibilityTimeout(Duration.ofMinutes(5))
		.maxAttempts(5)
		.backoffInitial(Duration.ZERO)
		.backoffMultiplier(1)
		.backoffMax(Duration.ZERO)
		.shutdownTimeout(Duration.ofSeconds(1))
		.deadLetterMaxSize(100)
		.deadLetterMaxAge(Duration.ofDays(1))
		.build();

	private final RedisTaskQueue tasks;

	private final String queue;

	private final ExecutorService workers = Executors.newFixedThreadPool(60);

	AcknowledgementsTests(RedisMode mode, RedisTargets targets) {
		RedisTarget redis = targets.get(mode);
		this.tasks = new RedisTaskQueue(redis.connectionFactory(), new JsonMapper(), "redislock");
		this.queue = redis.lockName("acks-" + UUID.randomUUID());
	}

	@AfterEach
	void close() {
		this.workers.shutdownNow();
	}

	private List<RedisTaskQueue.ClaimedTask> claimAll(int count) {
		for (int i = 0; i < count; i++) {
			this.tasks.enqueue(this.queue, "t" + i, "p" + i, null);
		}
		List<RedisTaskQueue.ClaimedTask> claimed = new ArrayList<>();
		while (claimed.size() < count) {
			List<RedisTaskQueue.ClaimedTask> batch = this.tasks.claim(this.queue, 100, "worker", SETTINGS).tasks();
			assertThat(batch).isNotEmpty();
			claimed.addAll(batch);
		}
		return claimed;
	}

	@Test
	void acknowledgementsQueuedMeanwhileLeaveInOneCall() throws Exception {
		List<RedisTaskQueue.ClaimedTask> claimed = claimAll(50);
		// One of them lost its claim (another worker's token now).
		RedisTaskQueue.ClaimedTask stale = claimed.get(17);
		claimed.set(17, new RedisTaskQueue.ClaimedTask(stale.queue(), stale.id(), stale.handle(), stale.payload(),
				"not-the-token", stale.attempt(), stale.callerContext(), stale.version()));
		Acknowledgements acknowledgements = new Acknowledgements(this.tasks, this.queue, 100, Duration.ofDays(1));
		List<Future<Boolean>> answers = new ArrayList<>();
		// An acknowledgement under way: the others queue up behind it.
		acknowledgements.sending().lock();
		try {
			for (RedisTaskQueue.ClaimedTask task : claimed) {
				answers.add(this.workers.submit(() -> acknowledgements.acknowledge(task)));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> acknowledgements.queued() == 50);
		}
		finally {
			acknowledgements.sending().unlock();
		}
		for (int i = 0; i < answers.size(); i++) {
			assertThat(answers.get(i).get(10, TimeUnit.SECONDS)).as("task " + i).isEqualTo(i != 17);
		}
		assertThat(acknowledgements.calls()).as("script calls for 50 acknowledgements").isOne();
		QueueDepths depths = this.tasks.depths(this.queue);
		assertThat(depths.inflight()).as("only the task whose claim was lost is still claimed").isOne();
	}

	@Test
	void aLoneAcknowledgementGoesAtOnce() {
		List<RedisTaskQueue.ClaimedTask> claimed = claimAll(3);
		Acknowledgements acknowledgements = new Acknowledgements(this.tasks, this.queue, 100, Duration.ofDays(1));
		for (RedisTaskQueue.ClaimedTask task : claimed) {
			assertThat(acknowledgements.acknowledge(task)).isTrue();
		}
		assertThat(acknowledgements.calls()).isEqualTo(3);
		assertThat(this.tasks.depths(this.queue).inflight()).isZero();
		// The same acknowledgement again (as the client sends a command again whose
		// answer
		// was lost in a reconnect) answers as the first did.
		assertThat(acknowledgements.acknowledge(claimed.get(0))).isTrue();
		assertThat(this.tasks.depths(this.queue).inflight()).isZero();
	}

	@Test
	void manyConcurrentAcknowledgementsAreAllRecorded() throws Exception {
		List<RedisTaskQueue.ClaimedTask> claimed = claimAll(600);
		Acknowledgements acknowledgements = new Acknowledgements(this.tasks, this.queue, 100, Duration.ofDays(1));
		List<Future<Boolean>> answers = new ArrayList<>();
		for (RedisTaskQueue.ClaimedTask task : claimed) {
			answers.add(this.workers.submit(() -> acknowledgements.acknowledge(task)));
		}
		for (Future<Boolean> answer : answers) {
			assertThat(answer.get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(acknowledgements.calls()).isBetween(3L, 600L);
		assertThat(this.tasks.depths(this.queue).inflight()).isZero();
	}

}
