package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Task identity and the bounds of what a queue keeps, driven through the queue's scripts
 * on a real Redis server and a real Redis Cluster: tasks that share an id stay
 * independent, nothing enqueued is lost, no id runs under two live claims, poison tasks
 * end in the dead letters, and no key outlives what it describes.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class QueueIntegrityTests {

	private static final Duration LONG = Duration.ofMinutes(5);

	private final RedisTarget redis;

	private final RedisTaskQueue first;

	private final RedisTaskQueue second;

	private final String queue;

	QueueIntegrityTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.first = new RedisTaskQueue(this.redis.connectionFactory(), new JsonMapper(), "redislock");
		this.second = new RedisTaskQueue(this.redis.connectionFactory(), new JsonMapper(), "redislock");
		this.queue = this.redis.lockName("integrity-" + UUID.randomUUID());
	}

	private static QueueSettings settings(Duration visibility, int maxAttempts, int maxDead, Duration maxDeadAge) {
		return QueueSettings.builder()
			.workers(1)
			.pollInterval(Duration.ofSeconds(1))
			.visibilityTimeout(visibility)
			.maxAttempts(maxAttempts)
			.backoffInitial(Duration.ZERO)
			.backoffMultiplier(1)
			.backoffMax(Duration.ZERO)
			.shutdownTimeout(Duration.ofSeconds(1))
			.deadLetterMaxSize(maxDead)
			.deadLetterMaxAge(maxDeadAge)
			.build();
	}

	private static final QueueSettings DEFAULTS = settings(LONG, 5, 100, Duration.ofDays(1));

	private List<RedisTaskQueue.ClaimedTask> claim(RedisTaskQueue queue, String claimer, QueueSettings settings) {
		return queue.claim(this.queue, 10, claimer, settings).tasks();
	}

	private List<RedisTaskQueue.ClaimedTask> claim(RedisTaskQueue queue, String claimer) {
		return claim(queue, claimer, DEFAULTS);
	}

	private boolean settle(RedisTaskQueue.ClaimedTask task, String action, String argument, QueueSettings settings) {
		return this.first.settle(this.queue, action, argument, settings.deadLetterMaxSize(),
				settings.deadLetterMaxAge(), List.of(task))[0];
	}

	private boolean settle(RedisTaskQueue.ClaimedTask task, String action, String argument) {
		return settle(task, action, argument, DEFAULTS);
	}

	private Set<String> queueKeys() {
		StringRedisTemplate raw = this.redis.template();
		Set<String> keys = new HashSet<>();
		// On a cluster KEYS runs on one node: the queue's slot is served by the node
		// that owns it, which the template's routing of a pattern does not know, so ask
		// for each key of the documented layout and for any other key by type.
		for (String suffix : List.of("ready", "waiting", "tasks", "inflight", "running", "claims", "dead", "dead-info",
				"dead-payloads", "seq", "payloads", "attempts")) {
			String key = "redislock:queue:{" + this.queue + "}:" + suffix;
			if (Boolean.TRUE.equals(raw.hasKey(key))) {
				keys.add(key);
			}
		}
		return keys;
	}

	private List<String> drain(RedisTaskQueue queue) {
		List<String> payloads = new ArrayList<>();
		List<RedisTaskQueue.ClaimedTask> claimed;
		while (!(claimed = claim(queue, "drain")).isEmpty()) {
			for (RedisTaskQueue.ClaimedTask task : claimed) {
				payloads.add(task.payload());
				assertThat(settle(task, "ack", "")).isTrue();
			}
		}
		return payloads;
	}

	@Test
	void enqueueingTheIdOfARunningTaskMakesAWaitingTaskThatRunsOnlyAfterTheRunSettled() {
		this.first.enqueue(this.queue, "x", "one", null);
		RedisTaskQueue.ClaimedTask running = claim(this.first, "a").get(0);
		assertThat(this.second.enqueue(this.queue, "x", "two", null)).as("a running id is not queued").isTrue();
		assertThat(this.second.size(this.queue)).isEqualTo(1);
		assertThat(claim(this.second, "b")).as("no second live claim of x").isEmpty();
		assertThat(settle(running, "extend", Long.toString(LONG.toMillis()))).as("first claim still valid").isTrue();
		assertThat(settle(running, "ack", "")).isTrue();
		RedisTaskQueue.ClaimedTask twin = claim(this.second, "b").get(0);
		assertThat(twin.payload()).isEqualTo("\"two\"");
		assertThat(twin.attempt()).isEqualTo(1);
		assertThat(settle(twin, "ack", "")).isTrue();
		assertThat(queueKeys()).isEmpty();
	}

	@Test
	void retryOfARunningTaskIsKeptBesideItsWaitingTwin() {
		this.first.enqueue(this.queue, "x", "one", null);
		RedisTaskQueue.ClaimedTask running = claim(this.first, "a").get(0);
		this.first.enqueue(this.queue, "x", "two", null);
		assertThat(settle(running, "retry", "0")).isTrue();
		assertThat(this.first.size(this.queue)).isEqualTo(2);
		assertThat(drain(this.second)).containsExactlyInAnyOrder("\"one\"", "\"two\"");
		assertThat(queueKeys()).isEmpty();
	}

	@Test
	void expiredClaimComesBackAsItsOwnTaskBesideItsWaitingTwin() {
		QueueSettings shortClaims = settings(Duration.ofMillis(100), 5, 100, Duration.ofDays(1));
		this.first.enqueue(this.queue, "x", "one", null);
		claim(this.first, "dies", shortClaims);
		this.first.enqueue(this.queue, "x", "two", null);
		await().pollDelay(Duration.ofMillis(150)).until(() -> true);
		List<String> payloads = new ArrayList<>();
		RedisTaskQueue.ClaimedTask next = claim(this.second, "b").get(0);
		payloads.add(next.payload());
		assertThat(settle(next, "ack", "")).isTrue();
		next = claim(this.second, "b").get(0);
		payloads.add(next.payload());
		assertThat(next.attempt()).isEqualTo(next.payload().equals("\"one\"") ? 2 : 1);
		assertThat(settle(next, "ack", "")).isTrue();
		assertThat(payloads).containsExactlyInAnyOrder("\"one\"", "\"two\"");
		assertThat(queueKeys()).isEmpty();
	}

	@Test
	void aClaimerIsNeverGivenAnIdItStillRunsAndKeepsTheExpiredClaimsItStillHolds() {
		QueueSettings shortClaims = settings(Duration.ofMillis(100), 5, 100, Duration.ofDays(1));
		this.first.enqueue(this.queue, "x", "one", null);
		RedisTaskQueue.ClaimedTask running = claim(this.first, "a", shortClaims).get(0);
		await().pollDelay(Duration.ofMillis(150)).until(() -> true);
		// Past its deadline, but "a" still runs x and holds the claim: not recovered.
		assertThat(this.first.claim(this.queue, 10, "a", shortClaims, List.of(running), List.of("x")).tasks())
			.as("claim of the claimer that still holds x")
			.isEmpty();
		assertThat(settle(running, "extend", "100000", shortClaims)).as("late renewal of the claim nobody took")
			.isTrue();
		// Once "a" no longer believes it holds the claim (its renewals failed), the claim
		// is recovered, but x is not given to "a" while it still runs there.
		assertThat(settle(running, "extend", "0", shortClaims)).isTrue();
		await().pollDelay(Duration.ofMillis(10)).until(() -> true);
		assertThat(this.first.claim(this.queue, 10, "a", shortClaims, List.of(), List.of("x")).tasks())
			.as("claim of the claimer that still runs x")
			.isEmpty();
		assertThat(settle(running, "ack", "", shortClaims)).as("settle of the recovered claim").isFalse();
		RedisTaskQueue.ClaimedTask again = claim(this.second, "b", shortClaims).get(0);
		assertThat(again.payload()).isEqualTo("\"one\"");
		assertThat(again.attempt()).isEqualTo(2);
		assertThat(settle(again, "ack", "")).isTrue();
		assertThat(queueKeys()).isEmpty();
	}

	@Test
	void deadLetterTrimLeavesTheRunningTwinsPayload() {
		QueueSettings oneDead = settings(LONG, 5, 1, Duration.ofDays(1));
		this.first.enqueue(this.queue, "x", "dead-x", null);
		assertThat(settle(claim(this.first, "a").get(0), "dead", "{}", oneDead)).isTrue();
		this.first.enqueue(this.queue, "x", "live-x", null);
		RedisTaskQueue.ClaimedTask running = claim(this.first, "a").get(0);
		this.first.enqueue(this.queue, "y", "dead-y", null);
		assertThat(settle(claim(this.first, "a").get(0), "dead", "{}", oneDead)).isTrue();
		assertThat(this.first.list(this.queue, 10)).extracting(DeadTask::id).containsExactly("y");
		assertThat(settle(running, "retry", "0")).isTrue();
		assertThat(claim(this.second, "b")).singleElement()
			.satisfies((task) -> assertThat(task.payload()).isEqualTo("\"live-x\""));
	}

	@Test
	void popDequeueAndReEnqueueLeaveADeadTwinAlone() {
		this.first.enqueue(this.queue, "x", "dead-x", null);
		assertThat(settle(claim(this.first, "a").get(0), "dead", "{\"attempts\":1}")).isTrue();
		this.first.enqueue(this.queue, "x", "second", null);
		assertThat(this.first.pop(this.queue, 10)).extracting(TaskEntry::payload).containsExactly("\"second\"");
		this.first.enqueue(this.queue, "x", "third", null);
		TaskEntry third = this.first.top(this.queue, 10).get(0);
		assertThat(this.first.dequeue(this.queue, "x", third.score())).isTrue();
		this.first.enqueue(this.queue, "x", "fourth", null);
		assertThat(this.first.list(this.queue, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.payload()).isEqualTo("\"dead-x\""));
		assertThat(this.first.requeue(this.queue, "x")).isTrue();
		assertThat(drain(this.second)).containsExactlyInAnyOrder("\"dead-x\"", "\"fourth\"");
		assertThat(queueKeys()).isEmpty();
	}

	@Test
	void aNewerDeathOfAnIdReplacesTheOlderDeadLetter() {
		for (String payload : List.of("old", "new")) {
			this.first.enqueue(this.queue, "x", payload, null);
			assertThat(settle(claim(this.first, "a").get(0), "dead", "{}")).isTrue();
		}
		assertThat(this.first.list(this.queue, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.payload()).isEqualTo("\"new\""));
		assertThat(this.first.purge(this.queue)).isEqualTo(1);
		assertThat(queueKeys()).isEmpty();
	}

	@Test
	void taskWhoseWorkerNeverReportsBackGoesToTheDeadLettersAfterMaxAttemptsClaims() {
		QueueSettings poison = settings(Duration.ofMillis(60), 3, 100, Duration.ofDays(1));
		this.first.enqueue(this.queue, "poison", "p", null);
		for (int attempt = 1; attempt <= 3; attempt++) {
			int expected = attempt;
			await().atMost(Duration.ofSeconds(10))
				.until(() -> claim(this.first, "dies-" + expected, poison), (claimed) -> !claimed.isEmpty());
		}
		await().pollDelay(Duration.ofMillis(100)).until(() -> true);
		assertThat(claim(this.second, "b", poison)).isEmpty();
		assertThat(this.first.list(this.queue, 10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isEqualTo("poison");
			assertThat(dead.attempts()).isEqualTo(3);
			assertThat(dead.error()).contains("never reported back");
			assertThat(dead.payload()).isEqualTo("\"p\"");
		});
		assertThat(this.first.size(this.queue)).isZero();
	}

	@Test
	void queueNameWithBracesKeepsEveryKeyInOneSlot() {
		String name = "}" + this.queue + "{a}b\\";
		this.first.enqueue(name, "x", "v", null);
		RedisTaskQueue.ClaimedTask task = this.first.claim(name, 10, "a", DEFAULTS).tasks().get(0);
		assertThat(this.first.settle(name, "dead", "{}", 100, Duration.ofDays(1), List.of(task))).containsExactly(true);
		assertThat(this.first.requeue(name, "x")).isTrue();
		assertThat(this.first.pop(name, 10)).extracting(TaskEntry::payload).containsExactly("\"v\"");
		assertThat(this.first.depths(name).ready()).isZero();
		assertThat(this.first.size(this.queue)).as("another queue").isZero();
	}

	@Test
	void keyPrefixWithBracesIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RedisTaskQueue(this.redis.connectionFactory(), new JsonMapper(), "app{1}"))
			.withMessageContaining("'{' or '}'");
	}

	@Test
	void popAndDequeueLeaveNoAttemptsBehind() {
		this.first.enqueue(this.queue, "x", "v", null);
		assertThat(settle(claim(this.first, "a").get(0), "retry", "0")).isTrue();
		assertThat(this.first.pop(this.queue, 10)).hasSize(1);
		this.first.enqueue(this.queue, "y", "v", null);
		assertThat(settle(claim(this.first, "a").get(0), "retry", "0")).isTrue();
		TaskEntry y = this.first.top(this.queue, 10).get(0);
		assertThat(this.first.dequeue(this.queue, "y", y.score())).isTrue();
		assertThat(queueKeys()).isEmpty();
	}

	@Test
	void agedDeadLettersGoWithoutANewDeath() {
		QueueSettings shortLived = settings(LONG, 5, 100, Duration.ofMillis(100));
		this.first.enqueue(this.queue, "x", "v", null);
		assertThat(settle(claim(this.first, "a").get(0), "dead", "{}", shortLived)).isTrue();
		assertThat(this.first.list(this.queue, 10)).hasSize(1);
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			claim(this.second, "idle", shortLived);
			return this.first.list(this.queue, 10).isEmpty();
		});
		assertThat(queueKeys()).isEmpty();
	}

	@Test
	void dequeueMatchesTheScoreUnderAnyDefaultLocale() {
		Locale previous = Locale.getDefault();
		try {
			for (String tag : List.of("ar-SA", "fa-IR", "bn-BD")) {
				Locale.setDefault(Locale.forLanguageTag(tag));
				this.first.enqueue(this.queue, tag, "v", Duration.ofMillis(1));
				TaskEntry entry = await().atMost(Duration.ofSeconds(5))
					.until(() -> this.first.top(this.queue, 1), (top) -> !top.isEmpty())
					.get(0);
				assertThat(this.first.dequeue(this.queue, tag, entry.score())).as(tag).isTrue();
			}
		}
		finally {
			Locale.setDefault(previous);
		}
	}

}
