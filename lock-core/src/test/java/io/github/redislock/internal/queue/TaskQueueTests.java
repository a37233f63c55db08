package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redislock.queue.TaskEntry;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import io.github.redislock.test.ReleaseMessages;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The {@link TaskQueue} operations against a real Redis server and a real Redis Cluster.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class TaskQueueTests {

	private static final QueueSettings SETTINGS = QueueSettings.builder()
		.workers(1)
		.pollInterval(Duration.ofSeconds(1))
		.maxAttempts(3)
		.backoffInitial(Duration.ZERO)
		.backoffMultiplier(1)
		.backoffMax(Duration.ZERO)
		.shutdownTimeout(Duration.ofSeconds(1))
		.deadLetterMaxSize(100)
		.deadLetterMaxAge(Duration.ofDays(1))
		.build();

	private final RedisTaskQueue tasks;

	private final String queue;

	private final RedisTarget redis;

	TaskQueueTests(RedisMode mode, RedisTargets targets) {
		RedisTarget redis = targets.get(mode);
		this.redis = redis;
		this.tasks = new RedisTaskQueue(redis.connectionFactory(), new JsonMapper(), "redislock");
		this.queue = redis.lockName("queue-" + UUID.randomUUID());
	}

	/**
	 * A task field that an instance of an earlier release leaves behind when it forgets a
	 * task (it does not know {@code handle:version}, say) goes once no task waits or
	 * runs: the tasks hash cannot grow with such fields.
	 */
	@Test
	void fieldsLeftInTheTasksHashGoOnceNoTaskWaitsOrRuns() {
		String tasksKey = "redislock:queue:{" + this.queue + "}:tasks";
		this.redis.template().opsForHash().put(tasksKey, "1:version", "1:0123456789abcdef");
		this.tasks.enqueue(this.queue, "a", "x", null);
		assertThat(this.redis.template().opsForHash().keys(tasksKey)).contains("1:version").hasSizeGreaterThan(1);
		assertThat(this.tasks.pop(this.queue, 1)).hasSize(1);
		assertThat(this.redis.template().hasKey(tasksKey)).isFalse();
	}

	/**
	 * An enqueue wakes workers only while one of them idles (its last claim found
	 * nothing): busy workers claim again as each task ends, so a stream of enqueues to a
	 * busy queue sends no message per task.
	 */
	@Test
	void anEnqueueWakesTheWorkersOnlyWhileOneIdles() throws Exception {
		try (ReleaseMessages notifications = ReleaseMessages.listenClassic(this.redis.connectionFactory(),
				"redislock:queue:ready")) {
			// No worker has looked yet: nobody to wake.
			this.tasks.enqueue(this.queue, "a", "x", null);
			assertThat(claim()).containsExactly("a");
			// This claim finds nothing: the worker idles from now on.
			assertThat(claim()).isEmpty();
			this.tasks.enqueue(this.queue, "b", "x", null);
			// Woken already; the next due one goes with the claim it is about to make.
			this.tasks.enqueue(this.queue, "c", "x", null);
			this.tasks.enqueue(this.queue, "later", "x", Duration.ofMinutes(1));
			assertThat(claim()).containsExactly("b", "c");
			assertThat(claim()).isEmpty();
			this.tasks.enqueue(this.queue, "d", "x", null);
			// Messages arrive in order: once the one for "d" is in, any other would be
			// too.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> notifications.messages().stream().filter(this.queue::equals).count() >= 2);
			assertThat(notifications.messages().stream().filter(this.queue::equals)).hasSize(2);
		}
	}

	/**
	 * A delayed task that falls due before an idle worker looks again wakes it (it then
	 * sleeps until the task is due, not a poll interval); one due after that look sends
	 * nothing.
	 */
	@Test
	void aDelayedEnqueueWakesIdleWorkersWhenItFallsDueBeforeTheyLookAgain() throws Exception {
		try (ReleaseMessages notifications = ReleaseMessages.listenClassic(this.redis.connectionFactory(),
				"redislock:queue:ready")) {
			assertThat(claim()).isEmpty();
			// The idle worker looks again within a poll interval and a margin (1.25 s).
			this.tasks.enqueue(this.queue, "soon", "x", Duration.ofMillis(200));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> notifications.messages().stream().filter(this.queue::equals).count() == 1);
			assertThat(claim()).as("not due yet").isEmpty();
			this.tasks.enqueue(this.queue, "later", "x", Duration.ofMinutes(1));
			this.tasks.enqueue(this.queue, "now", "x", null);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> notifications.messages().stream().filter(this.queue::equals).count() >= 2);
			assertThat(notifications.messages().stream().filter(this.queue::equals)).as("none for the later one")
				.hasSize(2);
		}
	}

	/**
	 * With a dedup window, an id that runs, or ran within the window, is not enqueued
	 * again (the enqueue says so); once the window has passed it is; without a window an
	 * id is deduplicated only while it waits.
	 */
	@Test
	void anIdThatRanWithinItsDedupWindowIsNotEnqueuedAgain() {
		Duration window = Duration.ofMillis(800);
		assertThat(this.tasks.enqueue(this.queue, "mail-1", "x", null, window)).isTrue();
		List<RedisTaskQueue.ClaimedTask> running = this.tasks.claim(this.queue, 10, "worker", SETTINGS).tasks();
		assertThat(running).extracting(RedisTaskQueue.ClaimedTask::id).containsExactly("mail-1");
		assertThat(this.tasks.enqueue(this.queue, "mail-1", "x", null, window)).as("while it runs").isFalse();
		assertThat(this.tasks.settle(this.queue, "ack", "", 100, Duration.ofDays(1), running)).containsExactly(true);
		long ran = System.nanoTime();
		assertThat(this.tasks.enqueue(this.queue, "mail-1", "x", null, window)).as("right after it ran").isFalse();
		assertThat(this.tasks.size(this.queue)).isZero();
		// Without a window: deduplicated only while waiting.
		assertThat(this.tasks.enqueue(this.queue, "mail-1", "x", null)).isTrue();
		assertThat(this.tasks.cancel(this.queue, "mail-1")).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.tasks.enqueue(this.queue, "mail-1", "x", null, window));
		assertThat(Duration.ofNanos(System.nanoTime() - ran)).as("not before the window passed")
			.isGreaterThanOrEqualTo(window.minusMillis(50));
	}

	/**
	 * A settle that runs twice (Lettuce sends a command again when its answer was lost in
	 * a reconnect) answers as its first run did, and does its work once; a settle of a
	 * claim that was really lost still answers that.
	 */
	@Test
	void aSettleThatRunsTwiceAnswersAsItsFirstRunDid() {
		for (String id : List.of("acked", "retried", "dead", "released")) {
			this.tasks.enqueue(this.queue, id, id, null);
		}
		Map<String, RedisTaskQueue.ClaimedTask> claimed = new java.util.HashMap<>();
		this.tasks.claim(this.queue, 10, "worker", SETTINGS).tasks().forEach((task) -> claimed.put(task.id(), task));
		assertThat(claimed).hasSize(4);
		Map<String, String> actions = Map.of("acked", "ack", "retried", "retry", "dead", "dead", "released", "release");
		for (Map.Entry<String, String> entry : actions.entrySet()) {
			String argument = switch (entry.getValue()) {
				case "retry" -> "60000";
				case "dead" -> "{\"error\":\"e\",\"attempts\":1}";
				default -> "";
			};
			for (int run = 1; run <= 2; run++) {
				assertThat(this.tasks.settle(this.queue, entry.getValue(), argument, 100, Duration.ofDays(1),
						List.of(claimed.get(entry.getKey()))))
					.as("%s, run %d", entry.getValue(), run)
					.containsExactly(true);
			}
		}
		assertThat(this.tasks.list(this.queue, 10)).extracting(io.github.redislock.queue.DeadTask::id)
			.containsExactly("dead");
		assertThat(this.tasks.size(this.queue)).as("retried and released wait again, once each").isEqualTo(2);
		// Released: due now, its attempt given back once.
		RedisTaskQueue.ClaimedTask again = this.tasks.claim(this.queue, 10, "worker", SETTINGS).tasks().get(0);
		assertThat(again.id()).isEqualTo("released");
		assertThat(again.attempt()).isEqualTo(1);
		// A claim that was lost (another token) is still told so.
		RedisTaskQueue.ClaimedTask stale = new RedisTaskQueue.ClaimedTask(again.queue(), again.id(), again.handle(),
				again.payload(), again.token() + "-other", again.attempt(), again.callerContext(), again.version());
		assertThat(this.tasks.settle(this.queue, "ack", "", 100, Duration.ofDays(1), List.of(stale)))
			.containsExactly(false);
	}

	/**
	 * More than a claim's skip cap of due tasks wait behind ids that run: a due task of
	 * an idle id behind them is still given out, and a waiting task of an id whose run
	 * ends is due again at once. They stay waiting tasks for size, top and pop.
	 */
	@Test
	void dueTasksWaitingForRunningIdsDoNotHideTheTasksBehindThem() {
		int blocked = 1100;
		for (int i = 0; i < blocked; i++) {
			this.tasks.enqueue(this.queue, "r" + i, "first", null);
		}
		List<RedisTaskQueue.ClaimedTask> first = this.tasks.claim(this.queue, blocked, "worker", SETTINGS).tasks();
		assertThat(first).hasSize(blocked);
		// A second task of each running id: due, but it waits for its id's run.
		for (int i = 0; i < blocked; i++) {
			this.tasks.enqueue(this.queue, "r" + i, "second", null);
		}
		this.tasks.enqueue(this.queue, "free", "x", null);
		assertThat(claim()).containsExactly("free");
		assertThat(claim()).isEmpty();
		assertThat(this.tasks.size(this.queue)).isEqualTo(blocked);
		assertThat(this.tasks.top(this.queue, 2)).extracting(TaskEntry::id).containsExactly("r0", "r1");
		RedisTaskQueue.ClaimedTask last = first.get(blocked - 1);
		assertThat(this.tasks.settle(this.queue, "ack", "", 100, Duration.ofDays(1), List.of(last)))
			.containsExactly(true);
		assertThat(claim()).containsExactly(last.id());
		assertThat(this.tasks.size(this.queue)).as("the others still wait").isEqualTo(blocked - 1);
		assertThat(this.tasks.pop(this.queue, 1)).extracting(TaskEntry::id).containsExactly("r0");
	}

	/**
	 * A claim that runs twice (sent again after its answer was lost in a reconnect)
	 * answers with the tasks its first run claimed, rather than claiming others and
	 * leaving those to lapse (an attempt spent by nobody).
	 */
	@Test
	void aClaimThatRunsTwiceAnswersWithTheTasksItsFirstRunClaimed() {
		for (String id : List.of("a", "b", "c", "d")) {
			this.tasks.enqueue(this.queue, id, id, null);
		}
		List<RedisTaskQueue.ClaimedTask> first = this.tasks
			.claim(this.queue, 2, "worker", SETTINGS, List.of(), List.of(), "worker:1")
			.tasks();
		List<RedisTaskQueue.ClaimedTask> again = this.tasks
			.claim(this.queue, 2, "worker", SETTINGS, List.of(), List.of(), "worker:1")
			.tasks();
		assertThat(first).extracting(RedisTaskQueue.ClaimedTask::id).containsExactly("a", "b");
		assertThat(again).isEqualTo(first);
		assertThat(this.tasks.claim(this.queue, 2, "worker", SETTINGS, List.of(), List.of(), "worker:2").tasks())
			.extracting(RedisTaskQueue.ClaimedTask::id)
			.containsExactly("c", "d");
		// Once settled, the first call's tasks are no longer handed out by it.
		this.tasks.settle(this.queue, "ack", "", 100, Duration.ofDays(1), first);
		assertThat(this.tasks.claim(this.queue, 2, "worker", SETTINGS, List.of(), List.of(), "worker:1").tasks())
			.isEmpty();
	}

	/**
	 * A claim that runs twice names again the tasks its first run sent to the dead
	 * letters (claimed max-attempts times, their workers never reported back): the
	 * claimer logs them, counts them and publishes their {@code TaskFailedEvent} from its
	 * answer, and the first run's answer was lost. So also when the first run claimed
	 * nothing (a paused queue); the second run then claims nothing either.
	 */
	@Test
	void aClaimThatRunsTwiceNamesTheTasksItsFirstRunDeadLettered() throws Exception {
		QueueSettings once = SETTINGS.toBuilder().visibilityTimeout(Duration.ofMillis(30)).maxAttempts(1).build();
		this.tasks.enqueue(this.queue, "poison", "x", null);
		assertThat(this.tasks.claim(this.queue, 1, "dies", once, List.of(), List.of(), "dies:1").tasks())
			.extracting(RedisTaskQueue.ClaimedTask::id)
			.containsExactly("poison");
		this.tasks.enqueue(this.queue, "next", "x", null);
		Thread.sleep(60);
		RedisTaskQueue.Claimed first = this.tasks.claim(this.queue, 1, "again", once, List.of(), List.of(), "again:1");
		RedisTaskQueue.Claimed again = this.tasks.claim(this.queue, 1, "again", once, List.of(), List.of(), "again:1");
		assertThat(first.deadLettered()).containsExactly("poison");
		assertThat(first.tasks()).extracting(RedisTaskQueue.ClaimedTask::id).containsExactly("next");
		assertThat(again.deadLettered()).as("dead-lettered, named again").containsExactly("poison");
		assertThat(again.tasks()).isEqualTo(first.tasks());
		this.tasks.settle(this.queue, "ack", "", 100, Duration.ofDays(1), first.tasks());
		// A first run that claims nothing (paused) but dead-letters a task.
		this.tasks.enqueue(this.queue, "poison 2", "x", null);
		assertThat(this.tasks.claim(this.queue, 1, "dies", once, List.of(), List.of(), "dies:2").tasks()).hasSize(1);
		this.tasks.pause(this.queue);
		Thread.sleep(60);
		this.tasks.enqueue(this.queue, "waits", "x", null);
		first = this.tasks.claim(this.queue, 1, "again", once, List.of(), List.of(), "again:2");
		again = this.tasks.claim(this.queue, 1, "again", once, List.of(), List.of(), "again:2");
		assertThat(first.deadLettered()).containsExactly("poison 2");
		assertThat(first.tasks()).isEmpty();
		assertThat(again.deadLettered()).as("dead-lettered, named again").containsExactly("poison 2");
		assertThat(again.tasks()).isEmpty();
		this.tasks.resume(this.queue);
		assertThat(claim()).containsExactly("waits");
	}

	/**
	 * An enqueue that runs twice (sent again after its answer was lost in a reconnect)
	 * answers as its first run did while its task waits, and enqueues nothing more; with
	 * REPLACE it does not replace its own task.
	 */
	@Test
	void anEnqueueThatRunsTwiceAnswersAsItsFirstRunDid() {
		for (boolean replace : List.of(false, true)) {
			String id = replace ? "replaced" : "kept";
			for (int run = 1; run <= 2; run++) {
				assertThat(this.tasks.enqueueJson(this.queue, id, "\"" + id + "\"", null, null, replace, Duration.ZERO,
						"", "caller:" + id))
					.as("%s, run %d", id, run)
					.isTrue();
			}
			assertThat(this.tasks.enqueueJson(this.queue, id, "\"other\"", null, null, false, Duration.ZERO, "",
					"caller:other"))
				.as("another call of the id")
				.isFalse();
		}
		assertThat(this.tasks.size(this.queue)).isEqualTo(2);
	}

	/**
	 * A task handed back to a later version of its method is due again after the base
	 * pause, doubled with each hand-back, at most the cap, and no attempt is spent: after
	 * a rollback, earlier instances claim it ever less often.
	 */
	@Test
	void aTaskHandedBackAgainAndAgainIsDueAfterPausesThatDoubleUpToTheCap() {
		this.tasks.enqueue(this.queue, "later", "x", null);
		List<Long> pauses = new java.util.ArrayList<>();
		for (int i = 0; i < 5; i++) {
			RedisTaskQueue.ClaimedTask task = this.tasks.claim(this.queue, 1, "worker", SETTINGS, List.of(), List.of())
				.tasks()
				.get(0);
			assertThat(task.attempt()).as("attempt of claim %d", i + 1).isEqualTo(1);
			long before = System.currentTimeMillis();
			assertThat(this.tasks.settle(this.queue, "defer", "1000:5000", 100, Duration.ofDays(1), List.of(task)))
				.containsExactly(true);
			TaskEntry waiting = this.tasks.upcoming(this.queue, 1).get(0);
			pauses.add(Math.round((waiting.score() - before) / 1000.0) * 1000);
			// Due now again, for the next claim.
			this.redis.template().opsForZSet().add("redislock:queue:{" + this.queue + "}:ready", task.handle(), 0);
		}
		assertThat(pauses).containsExactly(1000L, 2000L, 4000L, 5000L, 5000L);
	}

	/**
	 * A task id is at most 4 KB (in UTF-8): a longer one is refused, naming the queue and
	 * the size, and nothing is enqueued (operators' pages list ids whole).
	 */
	@Test
	void anIdLongerThan4KbIsRefusedAndNothingIsEnqueued() {
		String id = "\u00e9".repeat(2049);
		assertThatIllegalArgumentException().isThrownBy(() -> this.tasks.enqueue(this.queue, id, "x", null))
			.withMessageContaining("4098 bytes")
			.withMessageContaining(this.queue);
		assertThat(this.tasks.size(this.queue)).isZero();
		assertThat(this.tasks.enqueue(this.queue, "\u00e9".repeat(2048), "x", null)).isTrue();
	}

	private List<String> claim() {
		return this.tasks.claim(this.queue, 10, "worker", SETTINGS)
			.tasks()
			.stream()
			.map(RedisTaskQueue.ClaimedTask::id)
			.toList();
	}

	@Test
	void keepLeavesAWaitingTaskUnchangedAndReplaceReplacesIt() {
		assertThat(this.tasks.enqueue(this.queue, "a", Map.of("v", 1), null)).isTrue();
		assertThat(this.tasks.enqueue(this.queue, "a", Map.of("v", 2), null)).isFalse();
		assertThat(this.tasks.size(this.queue)).isEqualTo(1);
		assertThat(this.tasks.top(this.queue, 10)).singleElement()
			.satisfies((entry) -> assertThat(entry.payload()).isEqualTo("{\"v\":1}"));
		this.tasks.enqueueOrReplace(this.queue, "a", Map.of("v", 3), null);
		assertThat(this.tasks.size(this.queue)).isEqualTo(1);
		assertThat(this.tasks.top(this.queue, 10)).singleElement()
			.satisfies((entry) -> assertThat(entry.payload()).isEqualTo("{\"v\":3}"));
	}

	@Test
	void delayedTaskIsNotDueBeforeItsTimeAndIsAfter() {
		this.tasks.enqueue(this.queue, "later", "x", Duration.ofMillis(700));
		assertThat(this.tasks.size(this.queue)).isEqualTo(1);
		assertThat(this.tasks.top(this.queue, 10)).isEmpty();
		assertThat(this.tasks.pop(this.queue, 10)).isEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.tasks.top(this.queue, 10).isEmpty());
		TaskEntry entry = this.tasks.pop(this.queue, 10).get(0);
		assertThat(entry.id()).isEqualTo("later");
	}

	@Test
	void topDoesNotRemoveAndPopTakesEarliestFirst() {
		for (String id : List.of("t1", "t2", "t3")) {
			long before = System.currentTimeMillis();
			this.tasks.enqueue(this.queue, id, id, null);
			// Distinct due times: the next task is enqueued at least a millisecond later.
			await().until(() -> System.currentTimeMillis() > before + 1);
		}
		this.tasks.enqueue(this.queue, "delayed", "d", Duration.ofMinutes(5));
		assertThat(this.tasks.top(this.queue, 10)).extracting(TaskEntry::id).containsExactly("t1", "t2", "t3");
		assertThat(this.tasks.size(this.queue)).isEqualTo(4);
		assertThat(this.tasks.pop(this.queue, 2)).extracting(TaskEntry::id).containsExactly("t1", "t2");
		assertThat(this.tasks.pop(this.queue, 5)).extracting(TaskEntry::id).containsExactly("t3");
		assertThat(this.tasks.size(this.queue)).isEqualTo(1);
	}

	@Test
	void dequeueWithAStaleScoreIsRefused() {
		this.tasks.enqueue(this.queue, "job", "v1", null);
		double first = this.tasks.top(this.queue, 1).get(0).score();
		await().until(() -> System.currentTimeMillis() > (long) first + 2);
		this.tasks.enqueueOrReplace(this.queue, "job", "v2", null);
		double second = this.tasks.top(this.queue, 1).get(0).score();
		assertThat(second).isGreaterThan(first);
		assertThat(this.tasks.dequeue(this.queue, "job", first)).isFalse();
		assertThat(this.tasks.size(this.queue)).isEqualTo(1);
		assertThat(this.tasks.dequeue(this.queue, "job", second)).isTrue();
		assertThat(this.tasks.size(this.queue)).isZero();
	}

	@Test
	void concurrentPopsNeverHandOneTaskToTwoCallers() throws Exception {
		for (int i = 0; i < 1000; i++) {
			this.tasks.enqueue(this.queue, "t" + i, i, null);
		}
		java.util.concurrent.ExecutorService poppers = java.util.concurrent.Executors.newFixedThreadPool(8);
		try {
			List<java.util.concurrent.Future<List<String>>> results = new java.util.ArrayList<>();
			for (int p = 0; p < 8; p++) {
				results.add(poppers.submit(() -> {
					List<String> taken = new java.util.ArrayList<>();
					List<TaskEntry> batch;
					while (!(batch = this.tasks.pop(this.queue, 7)).isEmpty()) {
						batch.forEach((entry) -> taken.add(entry.id()));
					}
					return taken;
				}));
			}
			List<String> all = new java.util.ArrayList<>();
			for (var result : results) {
				all.addAll(result.get());
			}
			assertThat(all).hasSize(1000).doesNotHaveDuplicates();
			assertThat(this.tasks.size(this.queue)).isZero();
		}
		finally {
			poppers.shutdownNow();
		}
	}

	@Test
	void cancelRemovesADelayedOrDueTaskAndOnlyThat() {
		this.tasks.enqueue(this.queue, "due", "d", null);
		this.tasks.enqueue(this.queue, "later", "l", Duration.ofHours(1));
		assertThat(this.tasks.find(this.queue, "later")).hasValueSatisfying((entry) -> {
			assertThat(entry.payload()).isEqualTo("\"l\"");
			assertThat(entry.score()).isGreaterThan(System.currentTimeMillis() + 3_000_000);
		});
		assertThat(this.tasks.cancel(this.queue, "later")).isTrue();
		assertThat(this.tasks.cancel(this.queue, "later")).isFalse();
		assertThat(this.tasks.find(this.queue, "later")).isEmpty();
		assertThat(this.tasks.upcoming(this.queue, 10)).isEmpty();
		assertThat(this.tasks.top(this.queue, 10)).extracting(TaskEntry::id).containsExactly("due");
		assertThat(this.tasks.cancel(this.queue, "due")).isTrue();
		assertThat(this.tasks.size(this.queue)).isZero();
		assertThat(this.tasks.cancel(this.queue, "never")).isFalse();
		// The cancelled tasks left nothing behind.
		assertThat(this.tasks.enqueue(this.queue, "later", "again", Duration.ofHours(1))).isTrue();
	}

	@Test
	void upcomingListsDelayedTasksEarliestFirstButNoDueOnes() {
		this.tasks.enqueue(this.queue, "now", "n", null);
		this.tasks.enqueue(this.queue, "in-3h", "c", Duration.ofHours(3));
		this.tasks.enqueue(this.queue, "in-1h", "a", Duration.ofHours(1));
		this.tasks.enqueue(this.queue, "in-2h", "b", Duration.ofHours(2));
		assertThat(this.tasks.upcoming(this.queue, 10)).extracting(TaskEntry::id)
			.containsExactly("in-1h", "in-2h", "in-3h");
		assertThat(this.tasks.upcoming(this.queue, 2)).extracting(TaskEntry::id).containsExactly("in-1h", "in-2h");
		assertThat(this.tasks.find(this.queue, "now")).hasValueSatisfying(
				(entry) -> assertThat(entry.score()).isLessThanOrEqualTo(System.currentTimeMillis() + 60_000));
	}

	@Test
	void pauseIsKeptInRedisAndEnqueuesAreStillAccepted() {
		assertThat(this.tasks.isPaused(this.queue)).isFalse();
		this.tasks.pause(this.queue);
		this.tasks.pause(this.queue);
		assertThat(this.tasks.isPaused(this.queue)).isTrue();
		assertThat(this.tasks.depths(this.queue).paused()).isTrue();
		assertThat(this.tasks.enqueue(this.queue, "while-paused", "p", null)).isTrue();
		RedisTaskQueue other = this.tasks;
		assertThat(other.claim(this.queue, 10, "worker", SETTINGS).tasks()).isEmpty();
		this.tasks.resume(this.queue);
		assertThat(this.tasks.isPaused(this.queue)).isFalse();
		assertThat(this.tasks.depths(this.queue).paused()).isFalse();
		assertThat(other.claim(this.queue, 10, "worker", SETTINGS).tasks()).extracting(RedisTaskQueue.ClaimedTask::id)
			.containsExactly("while-paused");
	}

	@Test
	void badArgumentsAreRefusedWithAMessage() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> this.tasks.upcoming(this.queue, 0))
			.withMessageContaining("'count' must be positive");
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> this.tasks.cancel(this.queue, ""))
			.withMessageContaining("'id' must not be empty");
	}

	@Test
	void scoresAreTheServersClockInEpochMilliseconds() {
		this.tasks.enqueue(this.queue, "now", "x", null);
		double score = this.tasks.top(this.queue, 1).get(0).score();
		assertThat(Math.abs(score - System.currentTimeMillis())).isLessThan(60_000);
	}

}
