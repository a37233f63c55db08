package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model-based randomized test of the task queue against a real Redis: random sequences
 * of enqueues (KEEP and REPLACE, a few shared ids, random delays), claims by several
 * workers of two application instances, outcomes (success, failure, a nested
 * {@code @QueuedTask} call, a worker that dies and leaves its claim to expire, a worker
 * that settles long after its visibility timeout), renewals, {@code pop}, {@code top},
 * {@code dequeue}, and dead-letter {@code list}, {@code requeue} and {@code purge}.
 * Successes, failures and nested calls run through the real workers' code and the real
 * {@code @QueuedTask} proxy.
 * <p>
 * The reference model is plain Java and knows nothing of the key layout. It predicts what
 * each operation returns and every task's fate. Timing is the one thing it cannot know
 * exactly (when Redis ran a call within the window the test measured around it), so after
 * each claim it asks Redis whether each earlier claim is still held, and checks that a
 * claim it finds gone could have expired by then and one it finds kept could not have
 * been recovered yet. After each sequence it checks: every enqueued task ended exactly
 * once as succeeded, dead-lettered or removed through the API (or is still pending), no
 * id ever ran under two live claims at once, every run got the payload enqueued for its
 * task, and after a full drain no key of the queue is left.
 * <p>
 * Prints its seed; {@code -Dredislock.model.seed=N} replays one sequence,
 * {@code -Dredislock.model.sequences=N} runs more (default: as many as fit in about 25
 * seconds per Redis mode, at most 400).
 */
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class QueueModelTests {

	static final Map<String, Handling> HANDLING = new ConcurrentHashMap<>();

	static final List<Integer> RAN = new CopyOnWriteArrayList<>();

	/**
	 * How often each interesting event happened, printed so a run shows what it covered.
	 */
	private final Map<String, Integer> events = new java.util.TreeMap<>();

	private static final long VISIBILITY = 60;

	private static final int MAX_ATTEMPTS = 2;

	private static final int MAX_DEAD = 1;

	private static final long BACKOFF = 5;

	private static final List<String> IDS = List.of("a", "b", "c");

	private final RedisTarget redis;

	private final String queue;

	private final StringRedisTemplate raw;

	QueueModelTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.raw = this.redis.template();
		this.queue = this.redis.lockName("model-" + UUID.randomUUID());
	}

	private ApplicationContextRunner instance() {
		RedisConnectionFactory connectionFactory = this.redis.connectionFactory();
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
					RedisLockAnnotationAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class))
			.withBean(RedisConnectionFactory.class, () -> connectionFactory)
			.withBean(Handlers.class)
			.withPropertyValues("model.queue=" + this.queue, "redislock.queue.workers=0",
					"redislock.queue.visibility-timeout=" + VISIBILITY + "ms",
					"redislock.queue.max-attempts=" + MAX_ATTEMPTS, "redislock.queue.backoff.initial=" + BACKOFF + "ms",
					"redislock.queue.backoff.max=" + BACKOFF + "ms",
					"redislock.queue.dead-letter.max-size=" + MAX_DEAD);
	}

	@Test
	void queueBehavesLikeItsModel() {
		String fixedSeed = System.getProperty("redislock.model.seed");
		int sequences = Integer.getInteger("redislock.model.sequences", (fixedSeed != null) ? 1 : 400);
		long budget = (System.getProperty("redislock.model.sequences") != null || fixedSeed != null) ? Long.MAX_VALUE
				: Duration.ofSeconds(25).toNanos();
		long first = (fixedSeed != null) ? Long.parseLong(fixedSeed) : new Random().nextLong();
		System.out.println("QueueModelTests: first seed " + first + " (replay one with -Dredislock.model.seed=N)");
		instance().run((a) -> instance().run((b) -> {
			Instance[] instances = { new Instance("A", a), new Instance("B", b) };
			long start = System.nanoTime();
			int ran = 0;
			for (int i = 0; i < sequences && System.nanoTime() - start < budget; i++) {
				long seed = first + i;
				Sequence sequence = new Sequence(seed, instances);
				try {
					sequence.run(40);
				}
				catch (AssertionError | RuntimeException ex) {
					throw new AssertionError("Sequence with seed " + seed + " (replay: -Dredislock.model.seed=" + seed
							+ ") failed: " + ex.getMessage() + "\nSteps:\n" + String.join("\n", sequence.log), ex);
				}
				ran++;
			}
			System.out
				.println("QueueModelTests: " + ran + " sequences passed on " + this.redis + "; events: " + this.events);
			assertThat(ran).isPositive();
		}));
	}

	/** What a handler does when it runs a task, by task number. */
	record Handling(boolean fail, String nestedId, int nestedTask) {
	}

	/** The @QueuedTask method whose tasks the model drives. */
	static class Handlers {

		@Autowired
		ObjectProvider<Handlers> self;

		@QueuedTask(queue = "${model.queue}", id = "#id")
		public void handle(String id, int task) {
			RAN.add(task);
			Handling handling = HANDLING.get(id + "/" + task);
			if (handling == null) {
				return;
			}
			if (handling.nestedId() != null) {
				this.self.getObject().handle(handling.nestedId(), handling.nestedTask());
			}
			if (handling.fail()) {
				throw new IllegalStateException("task " + task + " fails");
			}
		}

	}

	/** One application instance: its queue, workers and settings. */
	record Instance(String name, ApplicationContext context) {

		RedisTaskQueue queue() {
			return this.context.getBean(RedisTaskQueue.class);
		}

		QueueWorkers workers() {
			return this.context.getBean(QueueWorkers.class);
		}

	}

	enum State {

		WAITING, CLAIMED, SUCCEEDED, DEAD, REMOVED

	}

	/** A task as the model knows it. */
	static final class Task {

		final int number;

		final String id;

		State state = State.WAITING;

		int attempts;

		/** Earliest and latest possible due time (wall clock ms). */
		long dueFrom;

		long dueTo;

		/** Fates reached, in order: a dead task may be requeued and end otherwise. */
		final List<State> fates = new ArrayList<>();

		Task(int number, String id) {
			this.number = number;
			this.id = id;
		}

		@Override
		public String toString() {
			return "task " + this.number + " (" + this.id + ", " + this.state + ", attempts " + this.attempts + ")";
		}

	}

	/** One claim as the model knows it. */
	static final class Claim {

		final Task task;

		final Instance instance;

		final RedisTaskQueue.ClaimedTask claimed;

		/** When the claim's answer arrived: the worker can act from then on. */
		final long received;

		/** Earliest and latest possible visibility deadline. */
		long deadlineFrom;

		long deadlineTo;

		/** Whether the claim is still the task's claim in Redis. */
		boolean held = true;

		/** Whether the worker is gone (died) or done: it acts no more. */
		boolean over;

		/** When the worker stopped acting under this claim. */
		long end = Long.MAX_VALUE;

		Claim(Task task, Instance instance, RedisTaskQueue.ClaimedTask claimed, long sent, long received) {
			this.task = task;
			this.instance = instance;
			this.claimed = claimed;
			this.received = received;
			this.deadlineFrom = sent + VISIBILITY;
			this.deadlineTo = received + VISIBILITY;
		}

		/** Until when the worker may believe it holds the claim. */
		long liveUntil() {
			return Math.min(this.end, this.deadlineFrom);
		}

	}

	final class Sequence {

		final Random random;

		final Instance[] instances;

		final List<String> log = new ArrayList<>();

		final Map<Integer, Task> tasks = new LinkedHashMap<>();

		/** Waiting tasks of each id, in the order they started waiting. */
		final Map<String, List<Task>> waiting = new HashMap<>();

		/** The one claim of each id that Redis holds. */
		final Map<String, Claim> running = new HashMap<>();

		/** Dead letters in death order, one per id. */
		final LinkedHashMap<String, Task> dead = new LinkedHashMap<>();

		final List<Claim> claims = new ArrayList<>();

		int nextTask;

		/** Per cent of finished runs that fail: some sequences fail most runs. */
		final int failShare;

		Sequence(long seed, Instance[] instances) {
			this.random = new Random(seed);
			this.failShare = (this.random.nextInt(2) == 0) ? 80 : 35;
			this.instances = instances;
			this.nextTask = (int) Math.floorMod(seed * 1000, 1_000_000_000L);
		}

		void run(int steps) throws InterruptedException {
			HANDLING.clear();
			for (int step = 0; step < steps; step++) {
				int choice = this.random.nextInt(100);
				Instance instance = this.instances[this.random.nextInt(2)];
				if (choice < 28) {
					enqueue(instance, IDS.get(this.random.nextInt(IDS.size())), this.random.nextInt(10) < 3,
							List.of(0L, 0L, 0L, 10L, 40L).get(this.random.nextInt(5)));
				}
				else if (choice < 50) {
					claim(instance, "w" + this.random.nextInt(2), 1 + this.random.nextInt(3));
				}
				else if (choice < 74) {
					finishSomeClaim();
				}
				else if (choice < 79) {
					renew(instance);
				}
				else if (choice < 83) {
					pop(instance, 1 + this.random.nextInt(2));
				}
				else if (choice < 88) {
					topAndDequeue(instance);
				}
				else if (choice < 93) {
					deadLetters(instance);
				}
				else {
					sleep(5 + this.random.nextInt(70));
				}
			}
			drain();
		}

		private void count(String event) {
			QueueModelTests.this.events.merge(event, 1, Integer::sum);
		}

		private void step(String text) {
			this.log.add(this.log.size() + ": " + text);
		}

		private long now() {
			return System.currentTimeMillis();
		}

		private void sleep(long millis) throws InterruptedException {
			step("sleep " + millis + "ms");
			Thread.sleep(millis);
		}

		private Task newTask(String id) {
			Task task = new Task(this.nextTask++, id);
			this.tasks.put(task.number, task);
			return task;
		}

		private void startWaiting(Task task, long dueFrom, long dueTo) {
			task.state = State.WAITING;
			task.dueFrom = dueFrom;
			task.dueTo = dueTo;
			this.waiting.computeIfAbsent(task.id, (key) -> new ArrayList<>()).add(task);
		}

		private void stopWaiting(Task task) {
			List<Task> list = this.waiting.get(task.id);
			assertThat(list).as("waiting tasks of %s", task.id).contains(task);
			list.remove(task);
			if (list.isEmpty()) {
				this.waiting.remove(task.id);
			}
		}

		private void end(Task task, State fate) {
			task.state = fate;
			task.fates.add(fate);
		}

		private void bury(Task task) {
			Task older = this.dead.remove(task.id);
			if (older != null) {
				older.state = State.REMOVED;
				count("dead letter replaced by a newer death");
			}
			end(task, State.DEAD);
			this.dead.put(task.id, task);
			while (this.dead.size() > MAX_DEAD) {
				Task trimmed = this.dead.values().iterator().next();
				this.dead.remove(trimmed.id);
				trimmed.state = State.REMOVED;
				count("dead letter trimmed");
			}
		}

		/** Predict an enqueue of a new task and return the task, or null when kept. */
		private Task predictEnqueue(String id, boolean replace, long delay, long sent, long received) {
			List<Task> twins = this.waiting.getOrDefault(id, List.of());
			if (!twins.isEmpty()) {
				if (!replace) {
					count("kept");
					return null;
				}
				count("replaced");
				Task replaced = twins.get(twins.size() - 1);
				stopWaiting(replaced);
				end(replaced, State.REMOVED);
			}
			Task task = newTask(id);
			if (this.running.containsKey(id)) {
				count("enqueued while its id runs");
			}
			startWaiting(task, sent + delay, received + delay);
			return task;
		}

		void enqueue(Instance instance, String id, boolean replace, long delay) {
			int number = this.nextTask;
			long sent = now();
			boolean enqueued;
			Duration wait = Duration.ofMillis(delay);
			if (replace) {
				instance.queue().enqueueOrReplace(queue, id, List.of(id, number), wait);
				enqueued = true;
			}
			else {
				enqueued = instance.queue().enqueue(queue, id, List.of(id, number), wait);
			}
			long received = now();
			Task task = predictEnqueue(id, replace, delay, sent, received);
			if (task == null) {
				this.nextTask++;
			}
			step(instance.name() + " enqueue " + id + "/" + number + (replace ? " REPLACE" : " KEEP") + " delay "
					+ delay + " -> " + enqueued);
			assertThat(enqueued).as("enqueue of %s returns", id).isEqualTo(task != null);
		}

		private Task taskOf(String id, String payload) {
			// The payload is ["id", number]: the model's own record of the task.
			assertThat(payload).as("payload of a task of %s", id).startsWith("[").endsWith("]");
			String[] parts = payload.substring(1, payload.length() - 1).split(",");
			assertThat(parts).as("payload %s", payload).hasSize(2);
			assertThat(parts[0]).as("id in the payload").isEqualTo("\"" + id + "\"");
			Task task = this.tasks.get(Integer.parseInt(parts[1]));
			assertThat(task).as("the task of payload %s", payload).isNotNull();
			return task;
		}

		void claim(Instance instance, String worker, int max) {
			long sent = now();
			RedisTaskQueue.Claimed claimed = instance.queue()
				.claim(queue, max, instance.name() + worker, instance.workers().getSettings());
			long received = now();
			step(instance.name() + worker + " claim " + max + " -> "
					+ claimed.tasks().stream().map((task) -> task.id() + "/" + task.payload()).toList()
					+ " dead-lettered " + claimed.deadLettered());
			// Which earlier claims did this call recover? Ask Redis, then check that the
			// answer is possible.
			String claimsKey = "redislock:queue:{" + queue + "}:claims";
			List<String> expectedDead = new ArrayList<>();
			Set<String> recovered = new HashSet<>();
			for (Claim claim : new ArrayList<>(this.running.values())) {
				boolean held = claim.claimed.token()
					.equals(QueueModelTests.this.raw.opsForHash().get(claimsKey, claim.claimed.handle()));
				if (held) {
					assertThat(claim.deadlineTo)
						.as("%s: a claim whose deadline passed before the claim was sent is recovered", claim.task)
						.isGreaterThan(sent);
					continue;
				}
				assertThat(claim.deadlineFrom).as("%s: a claim is taken away only after its deadline", claim.task)
					.isLessThanOrEqualTo(received);
				claim.held = false;
				this.running.remove(claim.task.id);
				if (claim.task.attempts >= MAX_ATTEMPTS) {
					bury(claim.task);
					expectedDead.add(claim.task.id);
					count("poison task dead-lettered");
				}
				else {
					count("expired claim recovered");
					recovered.add(claim.task.id);
					startWaiting(claim.task, sent, received);
				}
			}
			assertThat(claimed.deadLettered()).as("tasks dead-lettered because their workers never reported back")
				.containsExactlyInAnyOrderElementsOf(expectedDead);
			Set<String> ids = new HashSet<>();
			for (RedisTaskQueue.ClaimedTask got : claimed.tasks()) {
				Task task = taskOf(got.id(), got.payload());
				assertThat(task.state).as("%s claimed", task).isEqualTo(State.WAITING);
				assertThat(ids.add(task.id)).as("one task of an id per claim").isTrue();
				assertThat(this.running).as("%s claimed while its id runs", task).doesNotContainKey(task.id);
				assertThat(task.dueFrom).as("%s claimed before it was due", task).isLessThanOrEqualTo(received);
				assertThat(got.attempt()).as("attempt of %s", task).isEqualTo(task.attempts + 1);
				stopWaiting(task);
				task.state = State.CLAIMED;
				task.attempts++;
				Claim claim = new Claim(task, instance, got, sent, received);
				for (Claim other : this.claims) {
					if (other.task.id.equals(task.id)) {
						assertThat(other.liveUntil())
							.as("%s: claimed again while an earlier claim of its id is live", task)
							.isLessThanOrEqualTo(received);
					}
				}
				this.claims.add(claim);
				this.running.put(task.id, claim);
				count("claimed");
			}
			if (claimed.tasks().size() < max) {
				for (Map.Entry<String, List<Task>> entry : this.waiting.entrySet()) {
					boolean due = entry.getValue()
						.stream()
						.anyMatch((task) -> task.dueTo <= sent || recovered.contains(task.id));
					if (due && this.running.containsKey(entry.getKey())) {
						count("due task waited for its id's run");
					}
					if (due && !this.running.containsKey(entry.getKey())) {
						throw new AssertionError("Claim of " + max + " left a due task of " + entry.getKey()
								+ " whose id does not run: " + entry.getValue());
					}
				}
			}
		}

		void finishSomeClaim() {
			List<Claim> live = this.claims.stream().filter((claim) -> !claim.over).toList();
			if (live.isEmpty()) {
				return;
			}
			Claim claim = live.get(this.random.nextInt(live.size()));
			int outcome = this.random.nextInt(100);
			if (outcome < 15) {
				claim.over = true;
				claim.end = now();
				step(claim.instance.name() + " worker of " + claim.task + " dies");
				return;
			}
			boolean fail = outcome < 15 + this.failShare;
			String nestedId = null;
			int nestedTask = 0;
			if (!fail && outcome >= 90) {
				nestedId = IDS.get(this.random.nextInt(IDS.size()));
				nestedTask = this.nextTask;
			}
			HANDLING.put(claim.task.id + "/" + claim.task.number, new Handling(fail, nestedId, nestedTask));
			run(claim, fail, nestedId, nestedTask);
		}

		private void run(Claim claim, boolean fail, String nestedId, int nestedTask) {
			QueueWorkers workers = claim.instance.workers();
			TaskRun run = new TaskRun(claim.claimed, System.nanoTime());
			RAN.clear();
			long sent = now();
			workers.run(workers.handler(queue), run);
			long received = now();
			claim.over = true;
			claim.end = received;
			step(claim.instance.name() + " runs " + claim.task + (fail ? " failing" : " succeeding")
					+ ((nestedId != null) ? ", nested call " + nestedId + "/" + nestedTask : "") + "; claim held "
					+ run.isClaimHeld());
			assertThat(RAN).as("what ran for %s: only its own body (a nested call is enqueued)", claim.task)
				.containsExactly(claim.task.number);
			if (nestedId != null) {
				Task nested = predictEnqueue(nestedId, false, 0, sent, received);
				if (nested == null) {
					this.nextTask++;
				}
			}
			assertThat(run.isClaimHeld()).as("%s: outcome recorded", claim.task).isEqualTo(claim.held);
			if (nestedId != null) {
				count("nested call");
			}
			if (!claim.held) {
				count("outcome of a lost claim dropped");
				return;
			}
			this.running.remove(claim.task.id);
			claim.held = false;
			if (!fail) {
				end(claim.task, State.SUCCEEDED);
				count("succeeded");
			}
			else if (claim.task.attempts >= MAX_ATTEMPTS) {
				bury(claim.task);
				count("failed into the dead letters");
			}
			else {
				count("failed, retried");
				startWaiting(claim.task, sent + BACKOFF, received + BACKOFF);
			}
		}

		void renew(Instance instance) {
			List<Claim> mine = this.claims.stream()
				.filter((claim) -> !claim.over && claim.instance == instance)
				.toList();
			if (mine.isEmpty()) {
				return;
			}
			long sent = now();
			boolean[] held = instance.queue()
				.settle(queue, "extend", Long.toString(VISIBILITY), MAX_DEAD, Duration.ofDays(1),
						mine.stream().map((claim) -> claim.claimed).toList());
			long received = now();
			step(instance.name() + " renews " + mine.size() + " claim(s)");
			for (int i = 0; i < mine.size(); i++) {
				Claim claim = mine.get(i);
				assertThat(held[i]).as("renewal of %s", claim.task).isEqualTo(claim.held);
				count(claim.held ? "renewed" : "renewal refused");
				if (claim.held) {
					claim.deadlineFrom = Math.max(claim.deadlineFrom, sent + VISIBILITY);
					claim.deadlineTo = received + VISIBILITY;
				}
			}
		}

		private void checkDue(List<TaskEntry> entries, int count, long sent, long received) {
			for (TaskEntry entry : entries) {
				Task task = taskOf(entry.id(), entry.payload());
				assertThat(task.state).as("%s listed as due", task).isEqualTo(State.WAITING);
				assertThat(task.dueFrom).as("%s listed before it was due", task).isLessThanOrEqualTo(received);
			}
			if (entries.size() < count) {
				for (List<Task> twins : this.waiting.values()) {
					for (Task task : twins) {
						if (task.dueTo <= sent) {
							assertThat(entries).as("due %s missing", task)
								.anyMatch((entry) -> entry.payload().endsWith("," + task.number + "]"));
						}
					}
				}
			}
		}

		void pop(Instance instance, int count) {
			long sent = now();
			List<TaskEntry> popped = instance.queue().pop(queue, count);
			long received = now();
			step(instance.name() + " pop " + count + " -> " + popped);
			checkDue(popped, count, sent, received);
			for (TaskEntry entry : popped) {
				count("popped");
				Task task = taskOf(entry.id(), entry.payload());
				stopWaiting(task);
				end(task, State.REMOVED);
			}
		}

		void topAndDequeue(Instance instance) {
			long sent = now();
			List<TaskEntry> top = instance.queue().top(queue, 10);
			long received = now();
			step(instance.name() + " top -> " + top);
			checkDue(top, 10, sent, received);
			if (top.isEmpty()) {
				return;
			}
			TaskEntry entry = top.get(this.random.nextInt(top.size()));
			Task task = taskOf(entry.id(), entry.payload());
			if (this.waiting.get(task.id).size() != 1) {
				// Two waiting tasks of one id may share a due time: the model could not
				// tell which one a dequeue removes.
				return;
			}
			boolean stale = this.random.nextBoolean();
			boolean removed = instance.queue().dequeue(queue, task.id, stale ? entry.score() - 1 : entry.score());
			step(instance.name() + " dequeue " + task + (stale ? " with a stale score" : "") + " -> " + removed);
			assertThat(removed).as("dequeue of %s", task).isEqualTo(!stale);
			count(stale ? "stale dequeue refused" : "dequeued");
			if (removed) {
				stopWaiting(task);
				end(task, State.REMOVED);
			}
		}

		void deadLetters(Instance instance) {
			List<DeadTask> list = instance.queue().list(queue, 100);
			step(instance.name() + " dead letters -> " + list.stream().map(DeadTask::payload).toList());
			assertThat(list).extracting(DeadTask::id).containsExactlyElementsOf(this.dead.keySet());
			for (DeadTask deadTask : list) {
				Task task = taskOf(deadTask.id(), deadTask.payload());
				assertThat(this.dead.get(task.id)).as("dead letter of %s", task.id).isSameAs(task);
				assertThat(deadTask.attempts()).as("attempts of dead %s", task).isEqualTo(task.attempts);
			}
			int choice = this.random.nextInt(10);
			if (choice < 6) {
				List<String> deadIds = new ArrayList<>(this.dead.keySet());
				String id = (!deadIds.isEmpty() && this.random.nextInt(5) > 0)
						? deadIds.get(this.random.nextInt(deadIds.size())) : IDS.get(this.random.nextInt(IDS.size()));
				long sent = now();
				boolean requeued = instance.queue().requeue(queue, id);
				long received = now();
				step(instance.name() + " requeue " + id + " -> " + requeued);
				Task task = this.dead.remove(id);
				assertThat(requeued).as("requeue of %s", id).isEqualTo(task != null);
				if (task != null) {
					count("requeued");
					task.attempts = 0;
					startWaiting(task, sent, received);
				}
			}
			else if (choice < 7) {
				long purged = instance.queue().purge(queue);
				step(instance.name() + " purge -> " + purged);
				assertThat(purged).isEqualTo(this.dead.size());
				this.dead.values().forEach((task) -> task.state = State.REMOVED);
				this.dead.clear();
			}
		}

		void drain() throws InterruptedException {
			step("drain");
			for (Claim claim : this.claims) {
				if (!claim.over) {
					HANDLING.remove(claim.task.id + "/" + claim.task.number);
					run(claim, false, null, 0);
				}
			}
			long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
			while (!this.waiting.isEmpty() || !this.running.isEmpty()) {
				assertThat(System.nanoTime()).as("drained in time").isLessThan(deadline);
				Thread.sleep(VISIBILITY / 3);
				Instance instance = this.instances[this.random.nextInt(2)];
				int before = this.claims.size();
				claim(instance, "drain", 10);
				for (Claim claim : this.claims.subList(before, this.claims.size())) {
					HANDLING.remove(claim.task.id + "/" + claim.task.number);
					run(claim, false, null, 0);
				}
			}
			long purged = this.instances[0].queue().purge(queue);
			assertThat(purged).isEqualTo(this.dead.size());
			this.dead.values().forEach((task) -> task.state = State.REMOVED);
			for (Task task : this.tasks.values()) {
				assertThat(task.state).as("%s ended", task).isIn(State.SUCCEEDED, State.DEAD, State.REMOVED);
				assertThat(task.fates.stream().filter((fate) -> fate == State.SUCCEEDED).count())
					.as("%s succeeded at most once", task)
					.isLessThanOrEqualTo(1);
			}
			for (String suffix : List.of("ready", "waiting", "tasks", "inflight", "running", "claims", "seq", "dead",
					"dead-info", "dead-payloads")) {
				String key = "redislock:queue:{" + queue + "}:" + suffix;
				assertThat(QueueModelTests.this.raw.hasKey(key)).as("%s left after a full drain", key).isFalse();
			}
		}

	}

}
