package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.TcpProxy;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Transitions of an instance that spreads its idle looks over its queues (an idle queue
 * is looked at every N poll intervals, N = the queues of the instance, at most 60 s):
 * instance under test with 10 queues, poll interval 1 s, so an idle queue is looked at
 * every 10 s. A task still starts within about one poll interval when it waited for its
 * id's run, is a retry, or was taken back from a dead worker, and when the subscription
 * was cut or Redis restarted; only a notification lost on a subscription that stays open
 * (half-open) waits for the idle look. Written by the hostile review of the change, which
 * proved the first three late (10 s) before they were fixed.
 */
@ExtendWith(RedisExtension.class)
class IdleTransitionTests {

	static final Map<String, Long> STARTED = new ConcurrentHashMap<>();

	static final Map<String, Long> ENDED = new ConcurrentHashMap<>();

	static final Map<String, CountDownLatch> GATES = new ConcurrentHashMap<>();

	private static final Duration PROMPT = Duration.ofMillis(2500);

	private final RedisServers servers;

	private LocalRedisServer redis;

	private final String prefix = "idle-" + UUID.randomUUID();

	IdleTransitionTests(RedisServers servers) {
		this.servers = servers;
		this.redis = servers.start();
	}

	private ApplicationContextRunner runner(String... redisProperties) {
		return LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues(redisProperties)
			.withPropertyValues("idle.prefix=" + this.prefix, "redislock.queue.poll-interval=1s",
					"redislock.queue.visibility-timeout=2s")
			.withBean(TenQueues.class);
	}

	private static long startLatencyMillis(String key, long sentNanos) {
		await().atMost(Duration.ofSeconds(30)).until(() -> STARTED.containsKey(key));
		return Duration.ofNanos(STARTED.get(key) - sentNanos).toMillis();
	}

	/**
	 * A task that waited for its id's run: the settle publishes, the poller is woken and
	 * claims before the worker thread has called ended() (here widened by an observation
	 * handler that takes 300 ms in onStop, as a synchronous exporter may), so the id is
	 * still in runningIds and the task is skipped; the poller idles, and ended() must
	 * wake it (else it would sleep the whole idle pause, 10 s here).
	 */
	@Test
	void aTaskWaitingForItsIdsRunStartsAtOnceAlsoWhenTheWakeUpBeatTheRunEnd() {
		runner(this.redis.springProperties()).withBean(ObservationRegistry.class, () -> {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new SlowStop());
			return registry;
		}).run((context) -> {
			assertThat(context).hasNotFailed();
			Thread.sleep(1500);
			TenQueues queues = context.getBean(TenQueues.class);
			String first = "first-" + UUID.randomUUID();
			String second = "second-" + UUID.randomUUID();
			GATES.put(first, new CountDownLatch(1));
			queues.keyed("same-id", first);
			await().atMost(Duration.ofSeconds(10)).until(() -> STARTED.containsKey(first));
			queues.keyed("same-id", second);
			Thread.sleep(500);
			assertThat(STARTED).doesNotContainKey(second);
			GATES.get(first).countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> ENDED.containsKey(first));
			long late = startLatencyMillis(second, ENDED.get(first));
			assertThat(Duration.ofMillis(late)).as("start of the waiting task after its id's run ended")
				.isLessThan(PROMPT);
		});
	}

	/**
	 * A failed run retried after a short backoff (1 ms), no slow handler: the settle
	 * (retry) publishes because the backoff ends before the next look; the poller wakes,
	 * sleeps until the retry is due, and claims it; when the worker thread has not yet
	 * called ended() by then (logging the WARN, the TaskFailedEvent hand-off, the
	 * observation), the id is still in runningIds and the due retry is skipped: ended()
	 * must wake the idle poller.
	 */
	@Test
	void aRetryWithAShortBackoffStartsAtOnce() {
		runner(this.redis.springProperties()).run((context) -> {
			assertThat(context).hasNotFailed();
			Thread.sleep(1500);
			TenQueues queues = context.getBean(TenQueues.class);
			long worst = 0;
			java.util.List<Long> lates = new java.util.ArrayList<>();
			for (int i = 0; i < 5; i++) {
				String id = "flaky-" + UUID.randomUUID();
				queues.flaky(id);
				await().atMost(Duration.ofSeconds(10)).until(() -> ENDED.containsKey(id));
				long late = startLatencyMillis(id + ":retry", ENDED.get(id));
				worst = Math.max(worst, late);
				lates.add(late);
			}
			assertThat(Duration.ofMillis(worst))
				.as("worst start of a retry (backoff 1 ms) after its failed run; all (ms): " + lates)
				.isLessThan(PROMPT);
		});
	}

	/**
	 * The subscription never dropped but its messages are lost (a pub/sub connection gone
	 * half-open behind a load balancer): tasks due now start when their idle queue is
	 * looked at again, at most N poll intervals (and 60 s) after the last look, or when
	 * the subscription's probe finds it deaf (every 30 s), whichever comes first: here
	 * the look, 10 s.
	 */
	@Test
	void withAHalfOpenSubscriptionADueTaskStartsAtTheIdleLook() {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			runner("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + proxy.port()).run((context) -> {
				assertThat(context).hasNotFailed();
				Thread.sleep(1500);
				proxy.silenceSubscribers();
				TenQueues queues = context.getBean(TenQueues.class);
				String id = "halfopen-" + UUID.randomUUID();
				long sent = System.nanoTime();
				queues.q3(id);
				// The notification is lost: the task starts at its queue's next idle
				// look,
				// at most 10 queues x 1 s after the last one.
				assertThat(Duration.ofMillis(startLatencyMillis(id, sent))).as("start of a due task, notification lost")
					.isLessThan(Duration.ofSeconds(10).plus(PROMPT));
			});
		}
	}

	/**
	 * The subscription goes half-open while its queues idle for long (10 queues at 3 s:
	 * each looked at every 30 s): its probe does not come back, so it is given up and
	 * made anew on a new connection, which wakes every poller; the task starts within a
	 * probe period and the probe's timeout, not at its queue's idle look. (Without the
	 * probe it waited for that look: about 27 s here.)
	 */
	@Test
	void aHalfOpenSubscriptionIsFoundByItsProbeBeforeTheIdleLook() {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			runner("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + proxy.port())
				.withPropertyValues("redislock.queue.poll-interval=3s")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					context.getBean(QueueWorkers.class).probeEvery(1000);
					Thread.sleep(1500);
					proxy.silenceSubscribers();
					TenQueues queues = context.getBean(TenQueues.class);
					String id = "probe-" + UUID.randomUUID();
					long sent = System.nanoTime();
					queues.q7(id);
					assertThat(Duration.ofMillis(startLatencyMillis(id, sent)))
						.as("start of a due task, notification lost on a half-open subscription")
						.isLessThan(Duration.ofSeconds(1 + 2).plus(PROMPT).plus(PROMPT));
				});
		}
	}

	/**
	 * A subscription that hears keeps its connection however often it is probed: its
	 * probes come back, none gives it up (a probe that gave up a healthy subscription
	 * would show as a new pub/sub connection).
	 */
	@Test
	void aHealthySubscriptionKeepsItsConnectionThroughItsProbes() {
		runner(this.redis.springProperties()).run((context) -> {
			assertThat(context).hasNotFailed();
			QueueWorkers workers = context.getBean(QueueWorkers.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> pubSubClients().size() == 1);
			java.util.List<String> before = pubSubClients();
			workers.probeEvery(50);
			Thread.sleep(3000);
			assertThat(workers.probesHeard()).as("probes heard").isGreaterThan(10);
			assertThat(pubSubClients()).as("the pub/sub connection after 3 s of probes every 50 ms").isEqualTo(before);
		});
	}

	private java.util.List<String> pubSubClients() {
		return this.redis.pubSubClientIds();
	}

	/**
	 * The pub/sub connection is closed (CLIENT KILL TYPE pubsub) while the pollers idle,
	 * and a task is enqueued at once, before the subscription is back: its notification
	 * is lost. The re-subscription is to wake every poller.
	 */
	@Test
	void aTaskEnqueuedWhileTheSubscriptionIsCutStartsOnceItIsBack() {
		runner(this.redis.springProperties()).run((context) -> {
			assertThat(context).hasNotFailed();
			Thread.sleep(1500);
			TenQueues queues = context.getBean(TenQueues.class);
			String id = "cut-" + UUID.randomUUID();
			assertThat(this.redis.killPubSubClients()).isPositive();
			long sent = System.nanoTime();
			queues.q4(id);
			assertThat(Duration.ofMillis(startLatencyMillis(id, sent))).as("start after the re-subscription")
				.isLessThan(PROMPT);
		});
	}

	/**
	 * Redis is killed and comes back empty (no persistence: the idle marks are gone)
	 * while the pollers idle; once the instance is connected again, a task due now is
	 * enqueued: without a mark no notification is sent, unless the re-subscription woke
	 * the pollers and they set it again.
	 */
	@Test
	void afterRedisRestartsEmptyWhileIdleADueTaskStartsPromptly() {
		runner(this.redis.springProperties()).run((context) -> {
			assertThat(context).hasNotFailed();
			Thread.sleep(1500);
			this.redis.kill();
			Thread.sleep(300);
			this.redis = this.servers.restart(this.redis);
			// Let Lettuce reconnect (its reconnect backoff) and re-subscribe.
			Thread.sleep(3000);
			TenQueues queues = context.getBean(TenQueues.class);
			String id = "restart-" + UUID.randomUUID();
			long sent = System.nanoTime();
			queues.q5(id);
			assertThat(Duration.ofMillis(startLatencyMillis(id, sent))).as("start of a due task after the restart")
				.isLessThan(PROMPT);
		});
	}

	/**
	 * A worker (another instance) claimed a task and died: the task is recovered by the
	 * next claim on its queue after the visibility timeout (2 s). An idle instance that
	 * looked at the queue while the claim was in flight (here: woken by a notification
	 * for it, as by any enqueue) makes that claim right after the deadline, not at its
	 * next idle look (10 s here); one that did not look meanwhile recovers it at that
	 * look, within the idle pause (docs/queue.md).
	 */
	@Test
	void aTaskOfADeadWorkerIsRecoveredSoonAfterItsVisibilityTimeout() {
		runner(this.redis.springProperties()).run((context) -> {
			assertThat(context).hasNotFailed();
			Thread.sleep(1500);
			RedisTaskQueue queue = context.getBean(RedisTaskQueue.class);
			String queueName = this.prefix + "-6";
			String id = "dead-" + UUID.randomUUID();
			// No notification for this enqueue (the mark is taken away): only the dead
			// instance's claim below sees the task.
			this.redis.template().delete("redislock:queue:{" + queueName + "}:idle");
			queue.enqueue(queueName, id, new Object[] { id }, Duration.ofMillis(0));
			RedisTaskQueue.Claimed claimed = queue.claim(queueName, 1, "a-dead-instance",
					QueueSettings.builder().visibilityTimeout(Duration.ofSeconds(2)).build());
			long claimedAt = System.nanoTime();
			if (claimed.tasks().isEmpty()) {
				// The live instance was faster; nothing to show.
				return;
			}
			// Looked at while the claim flies: it learns the claim's deadline.
			this.redis.template().convertAndSend(queue.notificationChannel(), queueName);
			long late = startLatencyMillis(id, claimedAt) - 2000;
			assertThat(Duration.ofMillis(late)).as("start after the dead claim's visibility timeout")
				.isLessThan(PROMPT);
		});
	}

	static final class SlowStop implements ObservationHandler<Observation.Context> {

		@Override
		public void onStop(Observation.Context context) {
			if (Thread.currentThread().getName().contains("worker")
					|| String.valueOf(context.getName()).contains("task")) {
				try {
					Thread.sleep(300);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	static class TenQueues {

		@QueuedTask(queue = "${idle.prefix}-0", id = "#key")
		public void keyed(String key, String tag) throws InterruptedException {
			ran(tag);
			CountDownLatch gate = GATES.get(tag);
			if (gate != null) {
				gate.await(20, TimeUnit.SECONDS);
			}
			ENDED.put(tag, System.nanoTime());
		}

		@QueuedTask(queue = "${idle.prefix}-1", backoff = "1ms")
		public void flaky(String id) {
			if (STARTED.putIfAbsent(id, System.nanoTime()) == null) {
				ENDED.put(id, System.nanoTime());
				throw new IllegalStateException("first attempt fails");
			}
			STARTED.putIfAbsent(id + ":retry", System.nanoTime());
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

		private static void ran(String id) {
			STARTED.putIfAbsent(id, System.nanoTime());
		}

	}

}
