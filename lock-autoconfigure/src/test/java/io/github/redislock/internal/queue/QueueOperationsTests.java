package io.github.redislock.internal.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.queue.DeadLetters;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.queue.TaskFailedEvent;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Operating the queue: per-task settings of {@code @QueuedTask}, due times per call,
 * cancel, pause and resume across instances, and {@link TaskFailedEvent}s — two
 * application instances on one real Redis.
 */
@ExtendWith(RedisExtension.class)
class QueueOperationsTests {

	/** Runs per test queue prefix: task id → runs. */
	static final Map<String, Map<String, AtomicInteger>> RUNS = new ConcurrentHashMap<>();

	/** Tasks of the "concurrent" queue running now, and the most seen at once. */
	static final Map<String, AtomicInteger[]> CONCURRENCY = new ConcurrentHashMap<>();

	static final Map<String, CountDownLatch> GATES = new ConcurrentHashMap<>();

	private final ApplicationContextRunner runner;

	private final String queue = "ops-" + UUID.randomUUID();

	QueueOperationsTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("test.queue=" + this.queue, "test.workers=3", "redislock.queue.workers=1",
					"redislock.queue.poll-interval=200ms", "redislock.queue.backoff.initial=10ms",
					"redislock.queue.max-attempts=5")
			.withBean(Tasks.class)
			.withBean(FailureEvents.class);
	}

	@AfterEach
	void openGates() {
		GATES.values().forEach(CountDownLatch::countDown);
	}

	private Map<String, AtomicInteger> runs() {
		return RUNS.computeIfAbsent(this.queue, (key) -> new ConcurrentHashMap<>());
	}

	private int runs(String id) {
		AtomicInteger count = runs().get(id);
		return (count != null) ? count.get() : 0;
	}

	private String queue(String method) {
		return this.queue + "." + method;
	}

	@Test
	void pauseOnOneInstanceStopsTheWorkersOfBothAndResumeOnTheOtherRunsEverything() {
		this.runner.run((first) -> this.runner.run((second) -> {
			TaskQueue queue = first.getBean(TaskQueue.class);
			queue.pause(queue("record"));
			assertThat(second.getBean(TaskQueue.class).isPaused(queue("record"))).isTrue();
			for (int i = 0; i < 10; i++) {
				second.getBean(Tasks.class).record("paused-" + i);
			}
			assertThat(queue.size(queue("record"))).isEqualTo(10);
			await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> runs().isEmpty());
			second.getBean(TaskQueue.class).resume(queue("record"));
			await().atMost(Duration.ofSeconds(20)).until(() -> runs().size() == 10);
			assertThat(runs().values()).allSatisfy((count) -> assertThat(count).hasValue(1));
			assertThat(queue.isPaused(queue("record"))).isFalse();
		}));
	}

	@Test
	void cancelledDelayedTaskNeverRuns() {
		this.runner.run((first) -> this.runner.run((second) -> {
			first.getBean(Tasks.class).remind("order-7", Duration.ofSeconds(2));
			TaskQueue queue = second.getBean(TaskQueue.class);
			assertThat(queue.upcoming(queue("remind"), 10)).extracting(TaskEntry::id).containsExactly("order-7");
			assertThat(queue.cancel(queue("remind"), "order-7")).isTrue();
			first.getBean(Tasks.class).remind("order-8", Duration.ofSeconds(2));
			await().atMost(Duration.ofSeconds(20)).until(() -> runs("order-8") == 1);
			assertThat(runs("order-7")).isZero();
			assertThat(queue.size(queue("remind"))).isZero();
		}));
	}

	@Test
	void delayExpressionGivesTheDueTimePerCall() {
		this.runner.withPropertyValues("redislock.queue.workers=0").run((context) -> {
			long before = System.currentTimeMillis();
			context.getBean(Tasks.class).remind("soon", Duration.ofMinutes(10));
			context.getBean(Tasks.class).remind("later", Duration.ofHours(2));
			List<TaskEntry> upcoming = context.getBean(TaskQueue.class).upcoming(queue("remind"), 10);
			assertThat(upcoming).extracting(TaskEntry::id).containsExactly("soon", "later");
			assertThat(upcoming.get(0).score()).isBetween(before + 9 * 60_000.0, before + 11 * 60_000.0);
			assertThat(upcoming.get(1).score()).isBetween(before + 119 * 60_000.0, before + 121 * 60_000.0);
		});
	}

	@Test
	void runAtInThePastRunsNowAndInTheFutureWaits() {
		this.runner.run((context) -> this.runner.run((other) -> {
			Tasks tasks = context.getBean(Tasks.class);
			long future = System.currentTimeMillis() + 3_600_000;
			// Enqueued on one instance, run by whichever takes it.
			tasks.at("future", future);
			tasks.at("past", Instant.now().minus(Duration.ofDays(3)).toEpochMilli());
			await().atMost(Duration.ofSeconds(20)).until(() -> runs("past") == 1);
			TaskQueue queue = other.getBean(TaskQueue.class);
			assertThat(queue.find(queue("at"), "future"))
				.hasValueSatisfying((entry) -> assertThat(entry.score()).isEqualTo((double) future));
			assertThat(runs("future")).isZero();
			tasks.atInstant("instant", Instant.now().minusSeconds(1));
			await().atMost(Duration.ofSeconds(20)).until(() -> runs("instant") == 1);
			assertThatIllegalArgumentException().isThrownBy(() -> tasks.atText("bad", "tomorrow"))
				.withMessageContaining("@QueuedTask on QueueOperationsTests.Tasks.atText(String, Object)")
				.withMessageContaining("runAt expression '#when'")
				.withMessageContaining("java.lang.String 'tomorrow'");
			assertThat(queue.find(queue("atText"), "bad")).isEmpty();
		}));
	}

	@Test
	void noRetryForSendsATaskToTheDeadLettersAtOnceAndPublishesTheFailure() {
		this.runner.run((first) -> this.runner.run((second) -> {
			first.getBean(Tasks.class).refuse("bad-address");
			DeadLetters dead = second.getBean(DeadLetters.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> !dead.list(queue("refuse"), 10).isEmpty());
			DeadTask task = dead.list(queue("refuse"), 10).get(0);
			assertThat(task.attempts()).isEqualTo(1);
			assertThat(task.error()).contains("IllegalArgumentException").contains("no such mailbox");
			assertThat(runs("bad-address")).isEqualTo(1);
			await().atMost(Duration.ofSeconds(10)).until(() -> FailureEvents.all(first, second).size() == 1);
			List<TaskFailedEvent> events = FailureEvents.all(first, second);
			assertThat(events).singleElement().satisfies((event) -> {
				assertThat(event.getQueue()).isEqualTo(queue("refuse"));
				assertThat(event.getTaskId()).isEqualTo("bad-address");
				assertThat(event.getAttempt()).isEqualTo(1);
				assertThat(event.isDeadLettered()).isTrue();
				assertThat(event.getError()).isInstanceOf(IllegalArgumentException.class)
					.hasMessageContaining("no such mailbox");
			});
			assertThat(FailureEvents.threads(first, second)).allSatisfy(
					(thread) -> assertThat(thread).startsWith("redislock-task-failed-events").doesNotContain("worker"));
		}));
	}

	@Test
	void perTaskMaxAttemptsRetriesThenBuriesAndEachFailureIsAnEvent() {
		this.runner.run((first) -> this.runner.run((second) -> {
			first.getBean(Tasks.class).flaky("twice");
			DeadLetters dead = second.getBean(DeadLetters.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> !dead.list(queue("flaky"), 10).isEmpty());
			assertThat(dead.list(queue("flaky"), 10).get(0).attempts()).isEqualTo(2);
			assertThat(runs("twice")).isEqualTo(2);
			await().atMost(Duration.ofSeconds(10)).until(() -> FailureEvents.all(first, second).size() == 2);
			assertThat(FailureEvents.all(first, second)
				.stream()
				.sorted(java.util.Comparator.comparingInt(TaskFailedEvent::getAttempt))
				.toList()).extracting(TaskFailedEvent::getAttempt, TaskFailedEvent::isDeadLettered)
				.containsExactly(org.assertj.core.groups.Tuple.tuple(1, false),
						org.assertj.core.groups.Tuple.tuple(2, true));
		}));
	}

	@Test
	void perTaskWorkersAreHonouredOnEachInstance() {
		GATES.put(this.queue, new CountDownLatch(1));
		this.runner.run((first) -> this.runner.run((second) -> {
			for (int i = 0; i < 12; i++) {
				first.getBean(Tasks.class).concurrent("c-" + i);
			}
			// 3 workers on each of 2 instances: 6 run at once, the rest wait.
			await().atMost(Duration.ofSeconds(20)).until(() -> concurrency()[0].get() == 6);
			await().during(Duration.ofMillis(800))
				.atMost(Duration.ofSeconds(3))
				.until(() -> concurrency()[0].get() == 6);
			assertThat(first.getBean(QueueWorkers.class).getSettings(queue("concurrent")).workers()).isEqualTo(3);
			assertThat(first.getBean(QueueWorkers.class).getSettings(queue("record")).workers()).isEqualTo(1);
			GATES.get(this.queue).countDown();
			await().atMost(Duration.ofSeconds(20)).until(() -> runs().size() == 12);
			assertThat(concurrency()[1].get()).isEqualTo(6);
		}));
	}

	private AtomicInteger[] concurrency() {
		return concurrency(this.queue);
	}

	/** Runs of the "concurrent" queue under way now [0], and the most at once [1]. */
	static AtomicInteger[] concurrency(String queue) {
		return CONCURRENCY.computeIfAbsent(queue,
				(key) -> new AtomicInteger[] { new AtomicInteger(), new AtomicInteger() });
	}

	@Test
	void perTaskVisibilityTimeoutAndBackoffOverrideTheDefaults() {
		this.runner.run((context) -> {
			QueueSettings settings = context.getBean(QueueWorkers.class).getSettings(queue("flaky"));
			assertThat(settings.visibilityTimeout()).isEqualTo(Duration.ofSeconds(7));
			assertThat(settings.backoffInitial()).isEqualTo(Duration.ofMillis(20));
			assertThat(settings.maxAttempts()).isEqualTo(2);
			QueueSettings defaults = context.getBean(QueueWorkers.class).getSettings(queue("record"));
			assertThat(defaults.maxAttempts()).isEqualTo(5);
			assertThat(defaults.backoffInitial()).isEqualTo(Duration.ofMillis(10));
		});
	}

	@Test
	void badPerTaskSettingsStopTheStartNamingTheMethodAndTheText() {
		assertStartFails(BadAttempts.class, "maxAttempts 'three' is not a whole number");
		assertStartFails(NegativeWorkers.class, "workers '-1' is -1, outside 0 to 10000");
		assertStartFails(ShortVisibility.class, "visibilityTimeout '10ms'", "shorter than 30ms");
		assertStartFails(BadBackoff.class, "backoff 'often' is not a duration");
		assertStartFails(UnknownDelayParameter.class, "delay expression '#dlay'");
		assertStartFails(DelayAndRunAt.class, "both delay '1s' and runAt '#when'");
		assertStartFails(MalformedRunAt.class, "runAt");
	}

	private void assertStartFails(Class<?> service, String... parts) {
		this.runner.withBean(service).run((context) -> {
			assertThat(context).hasFailed();
			for (String part : parts) {
				assertThat(context.getStartupFailure())
					.hasStackTraceContaining(
							"@QueuedTask on QueueOperationsTests." + service.getSimpleName() + ".call(")
					.hasStackTraceContaining(part);
			}
		});
	}

	static class Tasks {

		@Value("${test.queue}")
		String queueName;

		private void ran(String id) {
			RUNS.computeIfAbsent(this.queueName, (key) -> new ConcurrentHashMap<>())
				.computeIfAbsent(id, (key) -> new AtomicInteger())
				.incrementAndGet();
		}

		@QueuedTask(queue = "${test.queue}.record", id = "#id")
		public void record(String id) {
			ran(id);
		}

		@QueuedTask(queue = "${test.queue}.remind", id = "#id", delay = "#delay")
		public void remind(String id, Duration delay) {
			ran(id);
		}

		@QueuedTask(queue = "${test.queue}.at", id = "#id", runAt = "#epochMillis")
		public void at(String id, long epochMillis) {
			ran(id);
		}

		@QueuedTask(queue = "${test.queue}.atInstant", id = "#id", runAt = "#when")
		public void atInstant(String id, Instant when) {
			ran(id);
		}

		@QueuedTask(queue = "${test.queue}.atText", id = "#id", runAt = "#when")
		public void atText(String id, Object when) {
			ran(id);
		}

		@QueuedTask(queue = "${test.queue}.refuse", id = "#id", noRetryFor = IllegalArgumentException.class)
		public void refuse(String id) {
			ran(id);
			throw new IllegalArgumentException("no such mailbox: " + id);
		}

		@QueuedTask(queue = "${test.queue}.flaky", id = "#id", maxAttempts = "2", backoff = "20ms",
				visibilityTimeout = "7s")
		public void flaky(String id) {
			ran(id);
			throw new IllegalStateException("flaky: " + id);
		}

		@QueuedTask(queue = "${test.queue}.concurrent", id = "#id", workers = "${test.workers}")
		public void concurrent(String id) throws InterruptedException {
			AtomicInteger[] counts = concurrency(this.queueName);
			int now = counts[0].incrementAndGet();
			counts[1].accumulateAndGet(now, Math::max);
			try {
				GATES.get(this.queueName).await(60, TimeUnit.SECONDS);
			}
			finally {
				counts[0].decrementAndGet();
			}
			ran(id);
		}

	}

	static class FailureEvents implements ApplicationListener<TaskFailedEvent> {

		final List<TaskFailedEvent> events = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(TaskFailedEvent event) {
			this.events.add(event);
			this.threads.add(Thread.currentThread().getName());
		}

		static List<TaskFailedEvent> all(org.springframework.context.ApplicationContext... contexts) {
			return java.util.Arrays.stream(contexts)
				.flatMap((context) -> context.getBean(FailureEvents.class).events.stream())
				.toList();
		}

		static List<String> threads(org.springframework.context.ApplicationContext... contexts) {
			return java.util.Arrays.stream(contexts)
				.flatMap((context) -> context.getBean(FailureEvents.class).threads.stream())
				.toList();
		}

	}

	static class BadAttempts {

		@QueuedTask(maxAttempts = "three")
		public void call(String id) {
		}

	}

	static class NegativeWorkers {

		@QueuedTask(workers = "-1")
		public void call(String id) {
		}

	}

	static class ShortVisibility {

		@QueuedTask(visibilityTimeout = "10ms")
		public void call(String id) {
		}

	}

	static class BadBackoff {

		@QueuedTask(backoff = "often")
		public void call(String id) {
		}

	}

	static class UnknownDelayParameter {

		@QueuedTask(delay = "#dlay")
		public void call(Duration delay) {
		}

	}

	static class DelayAndRunAt {

		@QueuedTask(delay = "1s", runAt = "#when")
		public void call(Instant when) {
		}

	}

	static class MalformedRunAt {

		@QueuedTask(runAt = "#when +")
		public void call(Instant when) {
		}

	}

}
