package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.OnDuplicate;
import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.queue.DeadLetters;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskContext;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.queue.TaskPayloadMigration;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@code @QueuedTask} methods run by workers of one or two application instances on a
 * real Redis.
 */
@ExtendWith(RedisExtension.class)
class QueuedTaskTests {

	/** What the handlers ran, per test queue: task id → runs. */
	static final Map<String, Map<String, AtomicInteger>> RUNS = new ConcurrentHashMap<>();

	static final Map<String, CountDownLatch> BLOCKERS = new ConcurrentHashMap<>();

	/** The runs of the watched handler, by test queue and task id, in start order. */
	static final Map<String, List<WatchedRun>> WATCHED = new ConcurrentHashMap<>();

	/** The payments the handlers were called with, by test queue and task id. */
	static final Map<String, Payment> PAID = new ConcurrentHashMap<>();

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	private final String queue = "tasks-" + UUID.randomUUID();

	QueuedTaskTests(RedisServer redis) {
		this.redis = redis;
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("test.queue=" + this.queue, "test.delay=0", "redislock.queue.poll-interval=200ms",
					"redislock.queue.backoff.initial=10ms")
			.withBean(Tasks.class);
	}

	@AfterEach
	void release() {
		BLOCKERS.values().forEach(CountDownLatch::countDown);
	}

	private Map<String, AtomicInteger> runs() {
		return RUNS.computeIfAbsent(this.queue, (key) -> new ConcurrentHashMap<>());
	}

	private StringRedisTemplate raw() {
		return this.redis.template();
	}

	/**
	 * The keys of this test's queues that hold tasks or their traces: all but the mark
	 * that a worker idles ({@code :idle}, which expires once no worker looks) and the
	 * recent settles and claim calls ({@code :settled}, {@code :claim:*}, which expire a
	 * minute after the last one).
	 */
	private Set<String> queueKeys() {
		Set<String> keys = new java.util.TreeSet<>(raw().keys("redislock:queue:{" + this.queue + ".*"));
		keys.removeIf((key) -> key.endsWith(":idle") || key.endsWith(":settled") || key.contains("}:claim:"));
		return keys;
	}

	/** The queue of one handler method: each @QueuedTask method has its own. */
	private String queue(String method) {
		return this.queue + "." + method;
	}

	@Test
	void twoInstancesWithFourWorkersEachRunFiveThousandTasksExactlyOnce() {
		ApplicationContextRunner instances = this.runner.withPropertyValues("redislock.queue.workers=4",
				"redislock.queue.batch-size=32");
		instances.run((first) -> instances.run((second) -> {
			Tasks producer = first.getBean(Tasks.class);
			for (int i = 0; i < 5000; i++) {
				producer.record("task-" + i);
			}
			await().atMost(Duration.ofMinutes(2)).until(() -> runs().size() == 5000);
			await().atMost(Duration.ofSeconds(30)).until(() -> queueKeys().isEmpty());
			assertThat(runs().values()).allSatisfy((count) -> assertThat(count).hasValue(1));
			assertThat(first.getBean(TaskQueue.class).size(queue("record"))).isZero();
		}));
	}

	@Test
	void delayedTaskRunsAfterItsDelayAndSoonAfter() {
		this.runner.withPropertyValues("test.delay=1s").run((context) -> {
			long start = System.nanoTime();
			context.getBean(Tasks.class).recordLater("late");
			await().atMost(Duration.ofSeconds(15)).until(() -> runs().containsKey("late"));
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofSeconds(10));
		});
	}

	@Test
	void producerOnlyInstanceKeepsOrReplacesDuplicatesById() {
		this.runner.withPropertyValues("redislock.queue.workers=0").run((context) -> {
			Tasks tasks = context.getBean(Tasks.class);
			TaskQueue queue = context.getBean(TaskQueue.class);
			tasks.keyed("order-1", "first");
			tasks.keyed("order-1", "second");
			assertThat(queue.top(queue("keyed"), 10)).singleElement()
				.satisfies((entry) -> assertThat(entry.payload()).isEqualTo("[\"order-1\",\"first\"]"));
			tasks.keyedReplace("order-1", "first");
			tasks.keyedReplace("order-1", "second");
			assertThat(queue.top(queue("replace"), 10)).singleElement()
				.satisfies((entry) -> assertThat(entry.payload()).isEqualTo("[\"order-1\",\"second\"]"));
			assertThat(runs()).isEmpty();
		});
	}

	@Test
	void taskOfAWorkerThatDiedRunsAgainOnTheOtherInstanceAfterTheVisibilityTimeout() {
		ApplicationContextRunner instances = this.runner.withPropertyValues("redislock.queue.workers=2",
				"redislock.queue.visibility-timeout=1s");
		BLOCKERS.put(this.queue, new CountDownLatch(1));
		instances.withPropertyValues("redislock.queue.workers=1").run((doomed) -> {
			doomed.getBean(Tasks.class).blocking("victim");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("victim"));
			// The worker's process dies from Redis's point of view: no renewal, no
			// answer.
			doomed.getBean(LettuceConnectionFactory.class).destroy();
			instances.run((survivor) -> {
				await().atMost(Duration.ofSeconds(30)).until(() -> runs().get("victim").get() == 2);
				BLOCKERS.get(this.queue).countDown();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> survivor.getBean(TaskQueue.class).size(queue("blocking")) == 0 && queueKeys().stream()
						.noneMatch((key) -> key.endsWith(":inflight") || key.endsWith(":claims")));
			});
		});
	}

	@Test
	void alwaysFailingTaskEndsInTheDeadLettersWithItsErrorAndCanBeRequeued() {
		this.runner.withPropertyValues("redislock.queue.max-attempts=3").run((context) -> {
			context.getBean(Tasks.class).failing("poison");
			DeadLetters dead = context.getBean(DeadLetters.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> !dead.list(queue("failing"), 10).isEmpty());
			assertThat(runs().get("poison")).hasValue(3);
			DeadTask task = dead.list(queue("failing"), 10).get(0);
			assertThat(task.attempts()).isEqualTo(3);
			assertThat(task.error()).contains("IllegalStateException").contains("always fails: poison");
			assertThat(task.payload()).isEqualTo("[\"poison\"]");
			assertThat(dead.requeue(queue("failing"), task.id())).isTrue();
			await().atMost(Duration.ofSeconds(20)).until(() -> runs().get("poison").get() == 6);
			await().atMost(Duration.ofSeconds(20)).until(() -> dead.list(queue("failing"), 10).size() == 1);
			assertThat(dead.purge(queue("failing"))).isEqualTo(1);
			assertThat(queueKeys()).isEmpty();
		});
	}

	/**
	 * Payloads that record no version (enqueued through the plain API): one written
	 * before the method got its last parameter runs (that parameter {@code null}); one
	 * that does not fit (an argument more) may be another version's, so it is retried
	 * like a failure, and dead-lettered with the reason and the method once its attempts
	 * are used up; one that no version can read (not a JSON array) goes to the dead
	 * letters at once.
	 */
	@Test
	void tasksWrittenForAnotherVersionOfTheMethodRunOrAreDeadLetteredAtOnce() {
		this.runner.withPropertyValues("redislock.queue.max-attempts=3").run((context) -> {
			TaskQueue queue = context.getBean(TaskQueue.class);
			// As an earlier version, keyed(id), wrote them.
			queue.enqueue(queue("keyed"), "old", List.of("old"), null);
			queue.enqueue(queue("keyed"), "newer", List.of("newer", "value", "an argument more"), null);
			queue.enqueue(queue("keyed"), "broken", Map.of("not", "an array"), null);
			await().atMost(Duration.ofSeconds(20)).until(() -> runs().containsKey("old"));
			DeadLetters dead = context.getBean(DeadLetters.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> dead.list(queue("keyed"), 10).size() == 2);
			Map<String, DeadTask> died = new java.util.HashMap<>();
			dead.list(queue("keyed"), 10).forEach((task) -> died.put(task.id(), task));
			assertThat(died.get("newer").attempts()).as("retried, as another version may run it").isEqualTo(3);
			assertThat(died.get("broken").attempts()).as("no version can read it: not retried").isEqualTo(1);
			for (DeadTask task : died.values()) {
				assertThat(task.error()).contains("payload-mismatch")
					.contains("keyed(java.lang.String,java.lang.String)");
			}
			assertThat(runs()).doesNotContainKeys("newer", "broken");
		});
	}

	/**
	 * Each task records the version of the method that wrote it. A payload that does not
	 * bind: written for a later version (a rolling deploy under way), it is handed back
	 * without spending an attempt, for an instance of that version; written for this
	 * version's parameters or an earlier version, it goes to the dead letters at once (no
	 * retry can help), its details naming the reason and the version; written for the
	 * same version with other parameters (the version was not raised), it is retried like
	 * any failure, as another instance may run it.
	 */
	@Test
	void aPayloadThatDoesNotBindIsHandedBackDeadLetteredOrRetriedByTheVersionItWasWrittenFor() throws Exception {
		this.runner.withPropertyValues("redislock.queue.max-attempts=3").run((context) -> {
			RedisTaskQueue queue = context.getBean(RedisTaskQueue.class);
			java.lang.reflect.Method keyed = Tasks.class.getMethod("keyed", String.class, String.class);
			String payload = "[\"%s\",\"value\",\"an argument more\"]";
			String keyedQueue = queue("keyed");
			queue.enqueueCall(keyedQueue, "later", payload.formatted("later"), null, null, false, Duration.ZERO,
					"2:0123456789abcdef");
			// Written for version 2, and it happens to bind to version 1: still not run
			// here.
			queue.enqueueCall(keyedQueue, "binds", "[\"binds\",\"value\"]", null, null, false, Duration.ZERO,
					"2:0123456789abcdef");
			queue.enqueueCall(keyedQueue, "same", payload.formatted("same"), null, null, false, Duration.ZERO,
					TaskVersion.tag(keyed, 1));
			queue.enqueueCall(keyedQueue, "unraised", payload.formatted("unraised"), null, null, false, Duration.ZERO,
					"1:0123456789abcdef");
			String versioned = queue("versioned");
			queue.enqueueCall(versioned, "older", "[\"older\", {\"not\": \"a string\"}]", null, null, false,
					Duration.ZERO, "1:0123456789abcdef");
			DeadLetters dead = context.getBean(DeadLetters.class);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> dead.list(keyedQueue, 10).size() == 2 && dead.list(versioned, 10).size() == 1);
			Map<String, DeadTask> died = new java.util.HashMap<>();
			dead.list(keyedQueue, 10).forEach((task) -> died.put(task.id(), task));
			assertThat(died).containsOnlyKeys("same", "unraised");
			assertThat(died.get("same").attempts()).as("written for this version: not retried").isEqualTo(1);
			assertThat(died.get("unraised").attempts()).as("same version, other parameters: retried").isEqualTo(3);
			assertThat(dead.list(versioned, 10).get(0).attempts()).as("an earlier version's: not retried").isEqualTo(1);
			String info = (String) raw().opsForHash().get("redislock:queue:{" + keyedQueue + "}:dead-info", "same");
			assertThat(info).contains("\"reason\":\"payload-mismatch\"")
				.contains("\"version\":\"" + TaskVersion.tag(keyed, 1) + "\"")
				.contains("keyed(java.lang.String,java.lang.String)");
			// The later version's task was handed back, again and again, never spending
			// an
			// attempt: it waits for an instance of version 2.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> raw().opsForHash()
					.entries("redislock:queue:{" + keyedQueue + "}:tasks")
					.entrySet()
					.stream()
					.anyMatch((entry) -> entry.getKey().toString().endsWith(":attempts")
							&& "0".equals(entry.getValue())));
			assertThat(queue.find(keyedQueue, "later")).isNotNull();
			assertThat(queue.find(keyedQueue, "binds")).isNotNull();
			assertThat(runs()).doesNotContainKeys("later", "binds", "same", "unraised", "older");
			// Requeued from the dead letters, a task keeps the version it was written
			// for.
			assertThat(dead.requeue(keyedQueue, "same")).isTrue();
			await().atMost(Duration.ofSeconds(20)).until(() -> dead.list(keyedQueue, 10).size() == 2);
			assertThat((String) raw().opsForHash().get("redislock:queue:{" + keyedQueue + "}:dead-info", "same"))
				.contains("\"version\":\"" + TaskVersion.tag(keyed, 1) + "\"");
		});
	}

	/**
	 * A failure's message is the task's to choose (it often carries an argument): the
	 * retry line writes its line breaks as escapes, so it cannot forge a line of the log.
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void theRetryLineCannotBeForgedByTheFailuresMessage(CapturedOutput output) {
		this.runner.withPropertyValues("redislock.queue.backoff.initial=1m").run((context) -> {
			context.getBean(Tasks.class).failing("x\n2026-11-26T00:00:00.000Z ERROR 1 --- [forged] FORGED");
			await().atMost(Duration.ofSeconds(20)).until(() -> output.getOut().contains("retrying in"));
			assertThat(output.getOut()).contains("always fails: x\\n2026-11-26")
				.doesNotContainPattern("(?m)^2026-11-26T00:00:00.000Z ERROR 1 --- \\[forged\\]");
		});
	}

	/**
	 * The dead-letter line carries the failure's stack trace: its message (and its
	 * causes') are written with line breaks escaped there too.
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void theDeadLetterLineCannotBeForgedByTheFailuresMessage(CapturedOutput output) {
		this.runner.withPropertyValues("redislock.queue.max-attempts=1").run((context) -> {
			context.getBean(Tasks.class).failing("x\n2026-11-26T00:00:00.000Z  INFO 1 --- [forged] FORGED LINE");
			await().atMost(Duration.ofSeconds(20)).until(() -> output.getOut().contains("moved to the dead letters"));
			assertThat(output.getOut()).contains("always fails: x\\n2026-11-26")
				.doesNotContainPattern("(?m)^2026-11-26T00:00:00.000Z  INFO 1 --- \\[forged\\]")
				.contains("at io.github.redislock.internal.queue.QueuedTaskTests$Tasks.failing");
		});
	}

	/**
	 * The application's mapper has default typing on (a payload may then name the class
	 * of a value): the queue reads payloads with a mapper derived from it but with
	 * default typing off, so a payload cannot choose a class the declared type does not.
	 */
	@Test
	void aPayloadCannotChooseItsClassWhenTheApplicationsMapperHasDefaultTyping() {
		this.runner
			.withBean(JsonMapper.class,
					() -> JsonMapper.builder()
						.activateDefaultTyping(tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator.builder()
							.allowIfSubType(Object.class)
							.build(), tools.jackson.databind.DefaultTyping.NON_FINAL)
						.build())
			.run((context) -> {
				TaskQueue queue = context.getBean(TaskQueue.class);
				((RedisTaskQueue) queue).enqueueCall(queue("anything"), "named",
						"[[\"" + Marker.class.getName() + "\",{}]]", null, null, false, Duration.ZERO, "");
				context.getBean(Tasks.class).anything(List.of("plain"));
				await().atMost(Duration.ofSeconds(20)).until(() -> ANYTHING.size() == 2);
				assertThat(Marker.MADE).as("instances of the class the payload named").hasValue(0);
				assertThat(ANYTHING).allSatisfy((value) -> assertThat(value).isInstanceOf(List.class));
			});
	}

	static final List<Object> ANYTHING = new java.util.concurrent.CopyOnWriteArrayList<>();

	public static class Marker {

		static final AtomicInteger MADE = new AtomicInteger();

		public Marker() {
			MADE.incrementAndGet();
		}

	}

	/**
	 * The same e-mail id sent four times at different moments, with a dedup window: it
	 * runs once; a bad window stops the start.
	 */
	@Test
	void anIdSentAgainWithinItsDedupWindowRunsOnce() {
		this.runner.run((context) -> {
			Tasks tasks = context.getBean(Tasks.class);
			tasks.mail("m-1");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("m-1"));
			RedisTaskQueue queue = context.getBean(RedisTaskQueue.class);
			for (int i = 0; i < 3; i++) {
				await().atMost(Duration.ofSeconds(10))
					.until(() -> queue.depths(queue("mail")).inflight() == 0 && queue.size(queue("mail")) == 0);
				tasks.mail("m-1");
			}
			tasks.mail("m-2");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("m-2"));
			assertThat(runs().get("m-1")).as("runs of the id sent four times").hasValue(1);
			assertThat(queue.size(queue("mail"))).isZero();
		});
		this.runner.withBean(BadDedup.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("dedupFor 'a while' is not a duration"));
		this.runner.withBean(TinyDedup.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("is out of range")
				.hasStackTraceContaining("('500us')"));
	}

	static class TinyDedup {

		@QueuedTask(id = "#name", dedupFor = "500us")
		public void call(String name) {
		}

	}

	static class BadDedup {

		@QueuedTask(id = "#name", dedupFor = "a while")
		public void call(String name) {
		}

	}

	/**
	 * A payload migration rewrites the payloads of an older shape before they are read:
	 * version 1 wrote keyed(id) as ["id"], version 2 reads keyed(id, value), and the
	 * migration gives the old tasks the value version 2 needs; payloads of the current
	 * shape are left alone.
	 */
	@Test
	void aPayloadMigrationRewritesOldPayloadsBeforeTheyAreRead() {
		this.runner.withBean(TaskPayloadMigration.class, () -> (queue, method, version, payload) -> {
			if (method.getName().equals("recordValue") && !payload.contains(",")) {
				return payload.replace("]", ",\"migrated\"]");
			}
			return payload;
		}).run((context) -> {
			TaskQueue queue = context.getBean(TaskQueue.class);
			queue.enqueue(queue("values"), "old", List.of("old"), null);
			context.getBean(Tasks.class).recordValue("new", "given");
			await().atMost(Duration.ofSeconds(20)).until(() -> VALUES.size() >= 2);
			assertThat(VALUES).containsEntry(this.queue + "/old", "migrated")
				.containsEntry(this.queue + "/new", "given");
		});
	}

	static final Map<String, String> VALUES = new ConcurrentHashMap<>();

	@Test
	void argumentsWhoseTypeCarriesATypeIdRunWithTheirValuesDeclaredAsTheInterfaceOrTheClass() {
		this.runner.run((context) -> {
			Tasks tasks = context.getBean(Tasks.class);
			tasks.pay("p1", new Card("4111"));
			tasks.pay("p2", new Transfer("DE89"));
			tasks.payByCard("p3", new Card("5500"));
			DeadLetters dead = context.getBean(DeadLetters.class);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> PAID.keySet().stream().filter((key) -> key.startsWith(this.queue)).count() == 3
						|| !dead.list(queue("pay"), 10).isEmpty() || !dead.list(queue("card"), 10).isEmpty());
			assertThat(dead.list(queue("pay"), 10)).as("dead letters of the interface's queue").isEmpty();
			assertThat(dead.list(queue("card"), 10)).as("dead letters of the class's queue").isEmpty();
			assertThat(PAID).containsEntry(this.queue + "/p1", new Card("4111"))
				.containsEntry(this.queue + "/p2", new Transfer("DE89"))
				.containsEntry(this.queue + "/p3", new Card("5500"));
		});
	}

	/**
	 * A payload larger than {@code redislock.queue.max-payload-size} is refused at the
	 * call, by a {@code @QueuedTask} method and by the {@link TaskQueue} API alike,
	 * naming the queue, the task, the size and the limit; nothing is enqueued.
	 */
	@Test
	void aPayloadLargerThanTheMaxPayloadSizeIsRefusedAtTheCallAndNothingIsEnqueued() {
		this.runner.withPropertyValues("redislock.queue.workers=0", "redislock.queue.max-payload-size=1KB")
			.run((context) -> {
				Tasks tasks = context.getBean(Tasks.class);
				assertThatIllegalArgumentException().isThrownBy(() -> tasks.recordValue("big-1", "x".repeat(1100)))
					.withMessageContaining("'" + queue("values") + "'")
					.withMessageContaining("'big-1'")
					.withMessageContaining("1112 bytes")
					.withMessageContaining("redislock.queue.max-payload-size (1024 bytes)");
				TaskQueue api = context.getBean(TaskQueue.class);
				assertThatIllegalArgumentException()
					.isThrownBy(() -> api.enqueue(queue("api"), "big-2", "é".repeat(600), null))
					.withMessageContaining("'big-2'")
					.withMessageContaining("1202 bytes");
				assertThatIllegalArgumentException()
					.isThrownBy(() -> api.enqueueOrReplace(queue("api"), "big-3", "y".repeat(2000), null))
					.withMessageContaining("'big-3'");
				assertThat(queueKeys()).isEmpty();
				tasks.recordValue("small", "x".repeat(900));
				assertThat(api.enqueue(queue("api"), "small", "y".repeat(1000), null)).isTrue();
				assertThat(api.size(queue("values"))).isOne();
			});
	}

	@Test
	void aMaxPayloadSizeBelowOneByteFailsStartUp() {
		this.runner.withPropertyValues("redislock.queue.max-payload-size=0B")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redislock.queue.max-payload-size"));
	}

	@Test
	void argumentThatCannotBeWrittenFailsTheCallNamingTheParameterAndWritesNothing() {
		this.runner.withPropertyValues("redislock.queue.workers=0").run((context) -> {
			assertThatIllegalArgumentException().isThrownBy(() -> context.getBean(Tasks.class).opaque(new Unwritable()))
				.withMessageContaining("QueuedTaskTests.Tasks.opaque(Object)")
				.withMessageContaining("argument 'thing' (" + Unwritable.class.getName() + ")");
			assertThat(queueKeys()).isEmpty();
		});
	}

	/**
	 * An argument that would reach the task as another value (a subclass passed where its
	 * base class is declared: its own properties would be lost) fails the call, naming
	 * the argument, and nothing is enqueued.
	 */
	@Test
	void anArgumentThatDoesNotReadBackAsItWasWrittenFailsTheCallAndWritesNothing() {
		this.runner.withPropertyValues("redislock.queue.workers=0").run((context) -> {
			TaskArgumentsTests.Special special = new TaskArgumentsTests.Special();
			special.id = "s-1";
			special.extra = "would be lost";
			assertThatIllegalArgumentException().isThrownBy(() -> context.getBean(Tasks.class).base(special))
				.withMessageContaining("QueuedTaskTests.Tasks.base(Base): argument 'base' (")
				.withMessageContaining("/extra: written, not read back");
			TaskArgumentsTests.Base base = new TaskArgumentsTests.Base();
			base.id = "b-1";
			assertThat(queueKeys()).isEmpty();
			context.getBean(Tasks.class).base(base);
			assertThat(context.getBean(TaskQueue.class).size(queue("base"))).isOne();
		});
	}

	@Test
	void callInsideATransactionIsEnqueuedAfterCommitAndNotAtAllOnRollback() {
		this.runner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withPropertyValues("redislock.queue.workers=0", "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID())
			.run((context) -> {
				Tasks tasks = context.getBean(Tasks.class);
				TaskQueue queue = context.getBean(TaskQueue.class);
				TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
				transaction.executeWithoutResult((status) -> {
					tasks.record("committed");
					assertThat(queue.size(queue("record"))).as("not before the commit").isZero();
				});
				assertThat(queue.size(queue("record"))).isEqualTo(1);
				transaction.executeWithoutResult((status) -> {
					tasks.record("rolled-back");
					status.setRollbackOnly();
				});
				assertThat(queue.top(queue("record"), 10)).extracting(TaskEntry::payload)
					.containsExactly("[\"committed\"]");
			});
	}

	@Test
	void shutdownHandsUnfinishedTasksBackAtOnce() {
		BLOCKERS.put(this.queue, new CountDownLatch(1));
		this.runner.withPropertyValues("redislock.queue.shutdown-timeout=200ms", "redislock.queue.workers=1")
			.run((context) -> {
				context.getBean(Tasks.class).blocking("unfinished");
				await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("unfinished"));
			});
		// The context is closed: the claim went back to ready, due now, without waiting
		// for
		// the visibility timeout.
		TaskQueue queue = new RedisTaskQueue(this.redis.connectionFactory(),
				new tools.jackson.databind.json.JsonMapper(), "redislock");
		assertThat(queue.top(queue("blocking"), 10)).extracting(TaskEntry::id).containsExactly("unfinished");
	}

	@Test
	void taskRunningTenVisibilityTimeoutsIsRenewedAndRunsOnce() {
		ApplicationContextRunner instances = this.runner.withPropertyValues("redislock.queue.visibility-timeout=300ms",
				"test.work-millis=3000");
		instances.run((first) -> instances.run((second) -> {
			first.getBean(Tasks.class).slow("long");
			await().atMost(Duration.ofSeconds(30)).until(() -> queueKeys().isEmpty() && runs().containsKey("long"));
			assertThat(runs().get("long")).hasValue(1);
		}));
	}

	@Test
	void queuedTaskCalledFromARunningTaskIsEnqueuedNotRunInline() {
		this.runner.run((context) -> {
			context.getBean(Tasks.class).outer("n1");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("outer:n1"));
			TaskQueue queue = context.getBean(TaskQueue.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> queue.size(queue("outer")) == 0);
			assertThat(runs()).as("the nested call waits for its delay").doesNotContainKey("later:n1");
			assertThat(queue.size(queue("nested"))).isEqualTo(1);
			assertThat(runs().get("outer:n1")).hasValue(1);
		});
	}

	@Test
	void runningTaskLearnsThatItsClaimWasLost() {
		this.runner.withPropertyValues("redislock.queue.visibility-timeout=300ms").run((context) -> {
			context.getBean(Tasks.class).watchful("w1");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("watching:w1"));
			assertThat(runs()).doesNotContainKey("lost:w1");
			// Another worker took the task meanwhile (as after a pause longer than the
			// visibility timeout): the claim this worker renews is no longer there.
			raw().delete("redislock:queue:{" + queue("watchful") + "}:claims");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("lost:w1"));
		});
	}

	@Test
	void aSlowRenewalOfOneQueueDoesNotDelayTheRenewalsOfAnother() {
		String slowQueue = queue("blocking");
		BLOCKERS.put(this.queue, new CountDownLatch(1));
		this.runner.withPropertyValues("redislock.queue.visibility-timeout=600ms", "test.work-millis=2500")
			.withBean(SlowRenewals.class, () -> new SlowRenewals(this.redis, slowQueue))
			.run((context) -> {
				Tasks tasks = context.getBean(Tasks.class);
				tasks.blocking("stuck");
				await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("stuck"));
				tasks.slow("fast");
				await().atMost(Duration.ofSeconds(30)).until(() -> runs().containsKey("fast"));
				RedisTaskQueue queue = context.getBean(RedisTaskQueue.class);
				await().atMost(Duration.ofSeconds(30))
					.until(() -> queue.depths(queue("slow")).inflight() == 0 && queue.size(queue("slow")) == 0);
				BLOCKERS.get(this.queue).countDown();
				assertThat(runs().get("fast")).as("renewed in time: ran once").hasValue(1);
			});
	}

	/**
	 * A queue whose renewals of one queue take far longer than the visibility timeout.
	 */
	static class SlowRenewals extends RedisTaskQueue {

		private final String slowQueue;

		SlowRenewals(RedisServer redis, String slowQueue) {
			super(redis.connectionFactory(), new tools.jackson.databind.json.JsonMapper(), "redislock");
			this.slowQueue = slowQueue;
		}

		@Override
		boolean[] settle(String queue, String action, String argument, int maxDead, Duration maxDeadAge,
				List<ClaimedTask> tasks) {
			if (queue.equals(this.slowQueue) && action.equals("extend")) {
				try {
					Thread.sleep(3000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return super.settle(queue, action, argument, maxDead, maxDeadAge, tasks);
		}

	}

	@Test
	void anInstanceWhoseOwnClaimExpiredNeverRunsTheTaskTwiceAtOnce() {
		String watchedQueue = queue("watched");
		StalledRenewals stalled = new StalledRenewals(this.redis, watchedQueue);
		BLOCKERS.put(this.queue, new CountDownLatch(1));
		Duration visibility = Duration.ofMillis(300);
		this.runner
			.withPropertyValues("redislock.queue.visibility-timeout=" + visibility.toMillis() + "ms",
					"redislock.queue.workers=6")
			.withBean(StalledRenewals.class, () -> stalled)
			.run((context) -> {
				Tasks tasks = context.getBean(Tasks.class);
				// A running task keeps the renewals of its queue going; the next one
				// stalls
				// (a pause of this instance, a hung call) while it renews only this task.
				tasks.watched("anchor");
				await().atMost(Duration.ofSeconds(10)).until(() -> watchedRuns("anchor").size() == 1);
				stalled.stallNextRenewal();
				await().atMost(Duration.ofSeconds(10)).until(stalled::isStalled);
				try {
					tasks.watched("twice");
					await().atMost(Duration.ofSeconds(10)).until(() -> watchedRuns("twice").size() == 1);
					// No renewal reaches Redis: the claim of "twice" passes its deadline
					// while its run goes on, and the poller of this instance looks again
					// (with a worker free for it).
					long expired = System.nanoTime() + visibility.toNanos() + TimeUnit.MILLISECONDS.toNanos(100);
					await().atMost(Duration.ofSeconds(10)).until(() -> stalled.claimsSentAfter(expired) >= 1);
					List<WatchedRun> runs = watchedRuns("twice");
					if (runs.size() > 1) {
						await().atMost(Duration.ofSeconds(3))
							.untilAsserted(() -> assertThat(runs.get(0).held)
								.as("first run of 'twice', whose claim this instance took again, still believes it"
										+ " holds the claim while the second run of it runs")
								.isFalse());
					}
					assertThat(runs).as("runs of 'twice' started by the one instance that still runs it").hasSize(1);
				}
				finally {
					stalled.resume();
				}
				// Renewed again: the run keeps its claim, and finishes once.
				await().pollDelay(visibility).atMost(Duration.ofSeconds(5)).until(() -> true);
				assertThat(watchedRuns("twice")).singleElement()
					.satisfies((run) -> assertThat(run.held).as("claim of the only run").isTrue());
				BLOCKERS.get(this.queue).countDown();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> context.getBean(RedisTaskQueue.class).depths(watchedQueue).inflight() == 0
							&& watchedRuns("twice").stream().noneMatch((run) -> run.running));
				assertThat(watchedRuns("twice")).hasSize(1);
			});
	}

	/**
	 * A renewal that selected a running task goes out after the task finished and its
	 * acknowledgement was recorded: it finds the claim gone, and that is no loss (no
	 * WARN, no claim-lost count).
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aRenewalThatRacesTheAcknowledgementOfAFinishedRunReportsNoLoss(CapturedOutput output) {
		String blockingQueue = queue("blocking");
		StalledRenewals stalled = new StalledRenewals(this.redis, blockingQueue);
		BLOCKERS.put(this.queue, new CountDownLatch(1));
		this.runner.withPropertyValues("redislock.queue.visibility-timeout=600ms")
			.withBean(StalledRenewals.class, () -> stalled)
			.run((context) -> {
				Tasks tasks = context.getBean(Tasks.class);
				tasks.blocking("done");
				await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("done"));
				// The next renewal takes the running task, then stalls before it is sent.
				stalled.stallNextRenewal();
				await().atMost(Duration.ofSeconds(10)).until(stalled::isStalled);
				BLOCKERS.get(this.queue).countDown();
				RedisTaskQueue queue = context.getBean(RedisTaskQueue.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> queue.depths(blockingQueue).inflight() == 0);
				stalled.resume();
				await().atMost(Duration.ofSeconds(10)).until(() -> stalled.renewalsAnswered() >= 1);
				assertThat(output).doesNotContain("lost its claim");
			});
	}

	private List<WatchedRun> watchedRuns(String id) {
		return WATCHED.getOrDefault(this.queue + "/" + id, List.of());
	}

	/**
	 * One run of the watched handler: whether it still runs, and whether it believed it
	 * held its claim when it last looked.
	 */
	static final class WatchedRun {

		volatile boolean running = true;

		volatile boolean held = true;

	}

	/**
	 * A queue whose renewals of one queue stall when asked to, until resumed; counts the
	 * claims of that queue.
	 */
	static class StalledRenewals extends RedisTaskQueue {

		private final String stalledQueue;

		private final java.util.concurrent.atomic.AtomicBoolean stallNext = new java.util.concurrent.atomic.AtomicBoolean();

		private volatile boolean stalled;

		private final CountDownLatch resumed = new CountDownLatch(1);

		private final java.util.concurrent.ConcurrentLinkedQueue<Long> claimsSent = new java.util.concurrent.ConcurrentLinkedQueue<>();

		StalledRenewals(RedisServer redis, String stalledQueue) {
			super(redis.connectionFactory(), new tools.jackson.databind.json.JsonMapper(), "redislock");
			this.stalledQueue = stalledQueue;
		}

		void stallNextRenewal() {
			this.stallNext.set(true);
		}

		boolean isStalled() {
			return this.stalled;
		}

		void resume() {
			this.resumed.countDown();
		}

		/** How many claims of the queue were sent after the given time and answered. */
		long claimsSentAfter(long nanos) {
			return this.claimsSent.stream().filter((sent) -> sent - nanos > 0).count();
		}

		@Override
		Claimed claim(String queue, int max, String claimer, QueueSettings settings,
				java.util.Collection<ClaimedTask> held, java.util.Collection<String> runningIds) {
			long sent = System.nanoTime();
			Claimed claimed = super.claim(queue, max, claimer, settings, held, runningIds);
			if (queue.equals(this.stalledQueue)) {
				this.claimsSent.add(sent);
			}
			return claimed;
		}

		@Override
		boolean[] settle(String queue, String action, String argument, int maxDead, Duration maxDeadAge,
				List<ClaimedTask> tasks) {
			boolean stalling = queue.equals(this.stalledQueue) && action.equals("extend")
					&& this.stallNext.getAndSet(false);
			if (stalling) {
				this.stalled = true;
				try {
					this.resumed.await(60, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			boolean[] settled = super.settle(queue, action, argument, maxDead, maxDeadAge, tasks);
			if (stalling) {
				this.stalledAnswered.incrementAndGet();
			}
			return settled;
		}

		/** How many stalled renewals were sent and answered. */
		int renewalsAnswered() {
			return this.stalledAnswered.get();
		}

		private final java.util.concurrent.atomic.AtomicInteger stalledAnswered = new java.util.concurrent.atomic.AtomicInteger();

	}

	@Test
	void shutdownLeavesTheClaimOfATaskThatDoesNotStopToItsVisibilityTimeout() {
		BLOCKERS.put(this.queue, new CountDownLatch(1));
		this.runner.withPropertyValues("redislock.queue.shutdown-timeout=200ms", "redislock.queue.workers=1")
			.run((context) -> {
				context.getBean(Tasks.class).stubborn("stubborn");
				await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("stubborn"));
			});
		// Closed, but the task ignored the interrupt and still runs: no other instance
		// may start it now.
		assertThat(runs()).doesNotContainKey("stubborn-done");
		TaskQueue queue = new RedisTaskQueue(this.redis.connectionFactory(),
				new tools.jackson.databind.json.JsonMapper(), "redislock");
		assertThat(queue.top(queue("stubborn"), 10)).isEmpty();
		assertThat(queue.size(queue("stubborn"))).isZero();
		BLOCKERS.get(this.queue).countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> runs().containsKey("stubborn-done"));
	}

	@Test
	void misusedQueuedTaskStopsTheStartNamingTheMethod() {
		this.runner.withBean(NotVoid.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("@QueuedTask on QueuedTaskTests.NotVoid.call(String)")
				.hasMessageContaining("returns String"));
		this.runner.withBean(BadId.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("@QueuedTask on QueuedTaskTests.BadId.call(String): id expression '#nme'"));
		this.runner.withBean(BadDelay.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("delay 'soon' is not a duration"));
		this.runner.withBean(VersionZero.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("@QueuedTask on QueuedTaskTests.VersionZero.call(String): version 0 is not"));
	}

	@Test
	void aFinalOrSuspendingQueuedTaskStopsTheStartNamingTheMethod() {
		this.runner.withBean(FinalTask.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("@QueuedTask on QueuedTaskTests.FinalTask.call(String): the method is final"));
		this.runner.withBean(SuspendingTask.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("a Kotlin suspend function cannot be a queued task"));
	}

	static class FinalTask {

		@QueuedTask
		public final void call(String name) {
		}

	}

	static class SuspendingTask {

		// What the Kotlin compiler makes of: suspend fun call(name: String), returning
		// Unit
		@QueuedTask
		public void call(String name, kotlin.coroutines.Continuation<? super Object> continuation) {
		}

	}

	static class VersionZero {

		@QueuedTask(version = 0)
		public void call(String name) {
		}

	}

	/**
	 * Parameters that cannot carry a task's arguments to another process stop the start,
	 * naming the method and the parameter.
	 */
	@Test
	void parametersThatCannotBeWrittenDownAndReadBackStopTheStart() {
		this.runner.withBean(StreamTask.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("@QueuedTask on QueuedTaskTests.StreamTask.upload(String, InputStream)")
				.hasStackTraceContaining("parameter 'content' (java.io.InputStream) is a AutoCloseable"));
		this.runner.withBean(ClassTask.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("parameter 'type' (java.lang.Class<?>) is a Class"));
		this.runner.withBean(InterfaceTask.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining(
						"parameter 'shape' (" + Shape.class.getName() + ") cannot be read back from JSON"));
	}

	static class StreamTask {

		@QueuedTask
		public void upload(String name, java.io.InputStream content) {
		}

	}

	static class ClassTask {

		@QueuedTask
		public void load(Class<?> type) {
		}

	}

	interface Shape {

		double area();

	}

	static class InterfaceTask {

		@QueuedTask
		public void draw(Shape shape) {
		}

	}

	@Test
	void disabledStarterRunsTheMethodInTheCaller() {
		this.runner.withPropertyValues("redislock.enabled=false").run((context) -> {
			context.getBean(Tasks.class).record("direct");
			assertThat(runs()).containsKey("direct");
		});
	}

	static class NotVoid {

		@QueuedTask
		public String call(String name) {
			return name;
		}

	}

	static class BadId {

		@QueuedTask(id = "#nme")
		public void call(String name) {
		}

	}

	static class BadDelay {

		@QueuedTask(delay = "soon")
		public void call(String name) {
		}

	}

	/** JSON cannot be written for it: reading its property fails. */
	static class Unwritable {

		public String getValue() {
			throw new IllegalStateException("not readable");
		}

	}

	/**
	 * A type that carries its type id, as a class hierarchy read by an interface does.
	 */
	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
	@JsonSubTypes({ @JsonSubTypes.Type(value = Card.class, name = "card"),
			@JsonSubTypes.Type(value = Transfer.class, name = "transfer") })
	sealed interface Payment permits Card, Transfer {

	}

	record Card(String number) implements Payment {
	}

	record Transfer(String iban) implements Payment {
	}

	static class Tasks {

		private static void ran(String queue, String id) {
			RUNS.computeIfAbsent(queue, (key) -> new ConcurrentHashMap<>())
				.computeIfAbsent(id, (key) -> new AtomicInteger())
				.incrementAndGet();
		}

		@QueuedTask(queue = "${test.queue}.record", id = "#id")
		public void record(String id) {
			ran(currentQueue(), id);
		}

		@QueuedTask(queue = "${test.queue}.later", id = "#id", delay = "${test.delay}")
		public void recordLater(String id) {
			ran(currentQueue(), id);
		}

		@QueuedTask(queue = "${test.queue}.values", id = "#id")
		public void recordValue(String id, String value) {
			VALUES.put(currentQueue() + "/" + id, value);
		}

		@QueuedTask(queue = "${test.queue}.mail", id = "#id", dedupFor = "1h")
		public void mail(String id) {
			ran(currentQueue(), id);
		}

		@QueuedTask(queue = "${test.queue}.keyed", id = "#id")
		public void keyed(String id, String value) {
			ran(currentQueue(), id);
		}

		@QueuedTask(queue = "${test.queue}.replace", id = "#id", onDuplicate = OnDuplicate.REPLACE)
		public void keyedReplace(String id, String value) {
			ran(currentQueue(), id);
		}

		@QueuedTask(queue = "${test.queue}.blocking", id = "#id")
		public void blocking(String id) throws InterruptedException {
			ran(currentQueue(), id);
			BLOCKERS.get(currentQueue()).await(60, TimeUnit.SECONDS);
		}

		@QueuedTask(queue = "${test.queue}.failing")
		public void failing(String id) {
			ran(currentQueue(), id);
			throw new IllegalStateException("always fails: " + id);
		}

		@QueuedTask(queue = "${test.queue}.slow", id = "#id")
		public void slow(String id) throws InterruptedException {
			Thread.sleep(this.workMillis);
			ran(currentQueue(), id);
		}

		@org.springframework.beans.factory.annotation.Value("${test.work-millis:0}")
		long workMillis;

		@org.springframework.beans.factory.annotation.Autowired
		org.springframework.beans.factory.ObjectProvider<Tasks> self;

		@QueuedTask(queue = "${test.queue}.outer", id = "#id")
		public void outer(String id) {
			this.self.getObject().later(id);
			ran(currentQueue(), "outer:" + id);
		}

		@QueuedTask(queue = "${test.queue}.nested", id = "#id", delay = "1h")
		public void later(String id) {
			ran(currentQueue(), "later:" + id);
		}

		@QueuedTask(queue = "${test.queue}.watchful", id = "#id")
		public void watchful(String id) throws InterruptedException {
			assertThat(TaskContext.taskId()).isEqualTo(id);
			assertThat(TaskContext.queue()).isEqualTo(currentQueue() + ".watchful");
			assertThat(TaskContext.attempt()).isEqualTo(1);
			ran(currentQueue(), "watching:" + id);
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (TaskContext.isClaimHeld() && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
			if (!TaskContext.isClaimHeld()) {
				ran(currentQueue(), "lost:" + id);
			}
		}

		@QueuedTask(queue = "${test.queue}.watched", id = "#id")
		public void watched(String id) throws InterruptedException {
			WatchedRun run = new WatchedRun();
			WATCHED
				.computeIfAbsent(currentQueue() + "/" + id, (key) -> new java.util.concurrent.CopyOnWriteArrayList<>())
				.add(run);
			try {
				CountDownLatch blocker = BLOCKERS.get(currentQueue());
				do {
					run.held = TaskContext.isClaimHeld();
				}
				while (!blocker.await(5, TimeUnit.MILLISECONDS));
				run.held = TaskContext.isClaimHeld();
			}
			finally {
				run.running = false;
			}
		}

		@QueuedTask(queue = "${test.queue}.stubborn", id = "#id")
		public void stubborn(String id) {
			ran(currentQueue(), id);
			CountDownLatch blocker = BLOCKERS.get(currentQueue());
			while (true) {
				try {
					if (blocker.await(60, TimeUnit.SECONDS)) {
						break;
					}
				}
				catch (InterruptedException ex) {
					// Ignored on purpose: a task that does not stop when asked.
				}
			}
			ran(currentQueue(), id + "-done");
		}

		@QueuedTask(queue = "${test.queue}.versioned", id = "#id", version = 2)
		public void versioned(String id, String value) {
			ran(currentQueue(), id);
		}

		@QueuedTask(queue = "${test.queue}.anything")
		public void anything(Object value) {
			ANYTHING.add(value);
		}

		@QueuedTask(queue = "${test.queue}.base")
		public void base(TaskArgumentsTests.Base base) {
		}

		@QueuedTask(queue = "${test.queue}.opaque")
		public void opaque(Object thing) {
		}

		@QueuedTask(queue = "${test.queue}.pay", id = "#id")
		public void pay(String id, Payment payment) {
			PAID.put(currentQueue() + "/" + id, payment);
		}

		@QueuedTask(queue = "${test.queue}.card", id = "#id")
		public void payByCard(String id, Card card) {
			PAID.put(currentQueue() + "/" + id, card);
		}

		@org.springframework.beans.factory.annotation.Value("${test.queue}")
		String queueName;

		String currentQueue() {
			return this.queueName;
		}

	}

}
