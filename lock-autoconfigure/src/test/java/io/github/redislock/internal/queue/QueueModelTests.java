package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import io.github.redislock.test.TcpProxy;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
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
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.util.ReflectionTestUtils;

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
 * task, and after a full drain no key of the queue is left but the documented short-lived
 * ones, each expiring within a minute.
 * <p>
 * Faults are transitions too. The instances reach Redis through a {@link TcpProxy}
 * (standalone) whose connections are cut at random moments while acknowledgements
 * (grouped by {@link Acknowledgements}), failure settles, a claim or an enqueue are in
 * flight; or whose replies are swallowed until the first command of such an operation has
 * run, and then cut, so that Lettuce sends again a command that already ran. On a cluster
 * the connections of the queue's node are cut with {@code CLIENT KILL TYPE normal}
 * instead (at random moments only: no proxy can stand in front of a cluster). Other
 * faults: {@code SCRIPT FLUSH} on the queue's node (with or without commands in flight);
 * a restart of that node that keeps its data ({@code SHUTDOWN SAVE}, then the same port
 * and directory: connections and script cache gone), with acknowledgements in flight on a
 * standalone server (a cluster node refuses commands for a moment after it starts, so
 * nothing is in flight there); pausing and resuming the queue (a paused queue gives no
 * claims); and a {@code cancel} of an id that races a claim. On a standalone server each
 * instance has a proxy of its own, so one instance's replies can also be held back while
 * the other goes on (enqueues, claims, runs, sleeps past visibility timeouts): its
 * outcomes (the first acknowledgement call runs, the others queue behind it) or its claim
 * (what its first run did is read from Redis and checked at once) are then sent again
 * after that other work. Every script the instances send is to answer as its first run
 * did when sent again, a claim also with the tasks its first run dead-lettered (and with
 * none of its tasks recovered meanwhile). A call that fails instead (Lettuce fails the
 * command it waits for when a connection ends with a reset rather than sending it again)
 * is checked against what Redis then holds: whether its enqueue ran, what its claim took
 * (left to expire, no worker got it), whether its outcome was recorded (if not, the claim
 * expires).
 * <p>
 * Prints its seed; {@code -Dredislock.model.seed=N} replays one sequence,
 * {@code -Dredislock.model.sequences=N} runs more (default: as many as fit in about 25
 * seconds per Redis mode, at most 400). Restarts are slow (a cluster node takes two
 * seconds before it takes writes), so only some sequences restart Redis, once: the first,
 * and those whose seed is a multiple of a number; a failure message says how to replay
 * with or without the restart ({@code -Dredislock.model.restart}).
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

	/** The client name of the instances' connections to a cluster. */
	private static final String INSTANCE_CLIENT = "redislock-model-instance";

	private final RedisTarget redis;

	private final String queue;

	private final StringRedisTemplate raw;

	/**
	 * Standalone: the proxy between each instance and Redis (cuts, lost replies); empty
	 * on a cluster.
	 */
	private final List<TcpProxy> proxies = new ArrayList<>();

	/**
	 * A plain connection to the node that serves the queue, not through the proxy: for
	 * faults ({@code CLIENT KILL}, {@code SCRIPT FLUSH}) and for the keys left.
	 */
	private RedisCommands<String, String> admin;

	/** The node that serves the queue when it is a local process (it can restart). */
	private LocalRedisServer restartable;

	/** Runs what is in flight while the test thread brings a fault. */
	private ExecutorService pool;

	QueueModelTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.raw = this.redis.template();
		this.queue = this.redis.lockName("model-" + UUID.randomUUID());
	}

	private boolean isCluster() {
		return this.redis instanceof RedisCluster;
	}

	/**
	 * Return the node (of the cluster) that serves the queue's slot now.
	 */
	private static LocalRedisServer nodeOf(RedisCluster cluster, String queue) {
		int slot = io.lettuce.core.cluster.SlotHash.getSlot("{" + queue + "}");
		String nodes = cluster.onNode(0, RedisCommands::clusterNodes);
		for (String line : nodes.split("\n")) {
			String[] fields = line.trim().split(" ");
			if (fields.length < 9 || !fields[2].contains("master")) {
				continue;
			}
			for (int i = 8; i < fields.length; i++) {
				String[] range = fields[i].split("-");
				if (range[0].startsWith("[")) {
					continue;
				}
				int from = Integer.parseInt(range[0]);
				int to = Integer.parseInt(range[range.length - 1]);
				if (slot >= from && slot <= to) {
					int port = Integer
						.parseInt(fields[1].substring(fields[1].indexOf(':') + 1, fields[1].indexOf('@')));
					for (LocalRedisServer node : cluster.nodes()) {
						if (node.port() == port) {
							return node;
						}
					}
				}
			}
		}
		throw new IllegalStateException("No node serves slot " + slot + ": " + nodes);
	}

	private ApplicationContextRunner instance(java.util.function.Supplier<RedisConnectionFactory> clients) {
		RedisConnectionFactory connectionFactory = clients.get();
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
		// Restarts take long on a cluster: some sequences restart once.
		int restartEvery = isCluster() ? 60 : 3;
		java.util.function.Supplier<RedisConnectionFactory> clients;
		String adminHost;
		int adminPort;
		String password = null;
		if (this.redis instanceof RedisCluster cluster) {
			this.restartable = nodeOf(cluster, this.queue);
			// Named, so that only the instances' connections are cut (CLIENT KILL by id).
			clients = () -> {
				RedisClusterConfiguration configuration = new RedisClusterConfiguration();
				for (LocalRedisServer node : cluster.nodes().subList(0, 3)) {
					configuration.clusterNode(node.host(), node.port());
				}
				LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
						LettuceClientConfiguration.builder().clientName(INSTANCE_CLIENT).build());
				factory.afterPropertiesSet();
				factory.start();
				return factory;
			};
			adminHost = this.restartable.host();
			adminPort = this.restartable.port();
		}
		else {
			RedisServer server = (RedisServer) this.redis;
			this.proxies.add(TcpProxy.to(server));
			this.proxies.add(TcpProxy.to(server));
			this.restartable = (server instanceof LocalRedisServer local) ? local : null;
			clients = null;
			adminHost = server.host();
			adminPort = server.port();
			password = server.password();
		}
		RedisURI.Builder uri = RedisURI.builder().withHost(adminHost).withPort(adminPort);
		if (password != null) {
			uri.withPassword(password.toCharArray());
		}
		RedisClient adminClient = RedisClient.create();
		StatefulRedisConnection<String, String> adminConnection = adminClient.connect(uri.build());
		this.admin = adminConnection.sync();
		this.pool = Executors.newCachedThreadPool();
		try {
			java.util.function.Supplier<RedisConnectionFactory> clientsA = this.proxies.isEmpty() ? clients
					: this.proxies.get(0)::connectionFactory;
			java.util.function.Supplier<RedisConnectionFactory> clientsB = this.proxies.isEmpty() ? clients
					: this.proxies.get(1)::connectionFactory;
			instance(clientsA).run((a) -> instance(clientsB).run((b) -> {
				Instance[] instances = { new Instance("A", a, this.proxies.isEmpty() ? null : this.proxies.get(0)),
						new Instance("B", b, this.proxies.isEmpty() ? null : this.proxies.get(1)) };
				long start = System.nanoTime();
				int ran = 0;
				for (int i = 0; i < sequences && System.nanoTime() - start < budget; i++) {
					long seed = first + i;
					boolean restart = (fixedSeed != null)
							? Boolean.parseBoolean(System.getProperty("redislock.model.restart", "true"))
							: i == 0 || Math.floorMod(seed, restartEvery) == 0;
					Sequence sequence = new Sequence(seed, instances, restart);
					try {
						sequence.run(40);
					}
					catch (AssertionError | Exception ex) {
						throw new AssertionError("Sequence with seed " + seed + " (replay: -Dredislock.model.seed="
								+ seed + " -Dredislock.model.restart=" + restart + ") failed: " + ex.getMessage()
								+ "\nSteps:\n" + String.join("\n", sequence.log), ex);
					}
					ran++;
				}
				System.out.println("QueueModelTests: " + ran + " sequences passed on " + this.redis + " in "
						+ Duration.ofNanos(System.nanoTime() - start).toMillis() + "ms; events: " + this.events);
				assertThat(ran).isPositive();
			}));
		}
		finally {
			this.pool.shutdownNow();
			adminConnection.close();
			adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			this.proxies.forEach(TcpProxy::close);
		}
	}

	/** A fault brought while an operation is in flight. */
	enum Fault {

		/**
		 * Replies swallowed until the operation's first command reached Redis (and ran),
		 * then every connection cut: Lettuce sends the command again.
		 */
		LOST_REPLY,

		/** The connections cut at a random moment. */
		CUT,

		/** {@code SCRIPT FLUSH} at a random moment. */
		SCRIPT_FLUSH,

		/** A restart that keeps the data. */
		RESTART

	}

	/** A task run by a worker: its run and when it started and ended. */
	record Execution(TaskRun run, long sent, long received) {
	}

	/** A claim call's answer and when it was sent and answered. */
	record ClaimCall(RedisTaskQueue.Claimed claimed, long sent, long received) {
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
	record Instance(String name, ApplicationContext context, TcpProxy proxy) {

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

		/** The step after which Redis restarts (-1: none in this sequence). */
		final int restartAfter;

		/** Whether the queue is paused. */
		boolean paused;

		Sequence(long seed, Instance[] instances, boolean restart) {
			this.random = new Random(seed);
			this.failShare = (this.random.nextInt(2) == 0) ? 80 : 35;
			this.restartAfter = restart ? this.random.nextInt(40) : -1;
			this.instances = instances;
			this.nextTask = (int) Math.floorMod(seed * 1000, 1_000_000_000L);
		}

		void run(int steps) throws Exception {
			HANDLING.clear();
			for (int step = 0; step < steps; step++) {
				int choice = this.random.nextInt(100);
				Instance instance = this.instances[this.random.nextInt(2)];
				if (choice < 25) {
					enqueue(instance, IDS.get(this.random.nextInt(IDS.size())), this.random.nextInt(10) < 3,
							List.of(0L, 0L, 0L, 10L, 40L).get(this.random.nextInt(5)));
				}
				else if (choice < 44) {
					claim(instance, "w" + this.random.nextInt(2), 1 + this.random.nextInt(3));
				}
				else if (choice < 64) {
					finishSomeClaim();
				}
				else if (choice < 68) {
					renew(instance);
				}
				else if (choice < 71) {
					pop(instance, 1 + this.random.nextInt(2));
				}
				else if (choice < 75) {
					topAndDequeue(instance);
				}
				else if (choice < 79) {
					deadLetters(instance);
				}
				else if (choice < 83) {
					sleep(5 + this.random.nextInt(70));
				}
				else if (choice < 88) {
					underFault(instance);
				}
				else if (choice < 90) {
					holdBackOutcomes(instance);
				}
				else if (choice < 92) {
					holdBackClaim(instance);
				}
				else if (choice < 94) {
					flushScripts();
				}
				else if (choice < 97) {
					pauseOrResume(instance);
				}
				else {
					cancelRacingClaim(instance);
				}
				if (step == this.restartAfter) {
					restart();
				}
				if (this.paused && this.random.nextInt(4) == 0) {
					pauseOrResume(this.instances[this.random.nextInt(2)]);
				}
			}
			drain();
		}

		// Faults.

		/** Cut the instances' connections (commands in flight are sent again). */
		private void cut() {
			if (!QueueModelTests.this.proxies.isEmpty()) {
				QueueModelTests.this.proxies.forEach(TcpProxy::cutCommandConnections);
			}
			else {
				for (String client : QueueModelTests.this.admin.clientList().split("\n")) {
					if (client.contains(" name=" + INSTANCE_CLIENT + " ")) {
						QueueModelTests.this.admin
							.clientKill(KillArgs.Builder.id(Long.parseLong(client.substring(3, client.indexOf(' ')))));
					}
				}
			}
		}

		/**
		 * Whether an operation failed because its connection was reset: Lettuce fails the
		 * command it waits for when the connection ends with a reset (the server closed
		 * it with data unread, say), rather than sending it again. Whether it ran is then
		 * read from Redis.
		 */
		private boolean connectionReset(Throwable failure) {
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				if (cause instanceof RedisConnectionFailureException) {
					return true;
				}
			}
			return false;
		}

		private String key(String suffix) {
			return "redislock:queue:{" + queue + "}:" + suffix;
		}

		/** The payloads of the waiting tasks of an id, as Redis has them. */
		private List<String> waitingPayloads(String id) {
			StringRedisTemplate raw = QueueModelTests.this.raw;
			Object handles = raw.opsForHash().get(key("waiting"), id);
			List<String> payloads = new ArrayList<>();
			if (handles != null) {
				for (String handle : handles.toString().split(" ")) {
					payloads.add(String.valueOf(raw.opsForHash().get(key("tasks"), handle + ":payload")));
				}
			}
			return payloads;
		}

		/**
		 * What a claim call whose connection was reset claimed, read from Redis: the
		 * claims of its claimer that the model does not know.
		 */
		private RedisTaskQueue.Claimed claimedByFailedCall(String claimer) {
			StringRedisTemplate raw = QueueModelTests.this.raw;
			Set<String> known = new HashSet<>();
			this.claims.forEach((claim) -> known.add(claim.claimed.token()));
			List<RedisTaskQueue.ClaimedTask> tasks = new ArrayList<>();
			for (Map.Entry<Object, Object> entry : raw.opsForHash().entries(key("claims")).entrySet()) {
				String handle = entry.getKey().toString();
				String token = entry.getValue().toString();
				if (token.startsWith(claimer + ":") && !known.contains(token)) {
					tasks.add(new RedisTaskQueue.ClaimedTask(queue,
							String.valueOf(raw.opsForHash().get(key("tasks"), handle + ":id")), handle,
							String.valueOf(raw.opsForHash().get(key("tasks"), handle + ":payload")), token,
							Integer.parseInt(String.valueOf(raw.opsForHash().get(key("tasks"), handle + ":attempts"))),
							"",
							java.util.Objects.toString(raw.opsForHash().get(key("tasks"), handle + ":version"), "")));
				}
			}
			return new RedisTaskQueue.Claimed(tasks, -1, List.of());
		}

		private void flush() {
			QueueModelTests.this.admin.scriptFlush();
		}

		private void flushScripts() {
			step("SCRIPT FLUSH");
			flush();
			count("fault: SCRIPT FLUSH with nothing in flight");
		}

		/**
		 * Restart the queue's node keeping its data; on a cluster, wait until it serves.
		 */
		private void restartServer() throws InterruptedException {
			long started = System.nanoTime();
			QueueModelTests.this.restartable.restartKeepingData();
			if (isCluster()) {
				long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
				while (!QueueModelTests.this.admin.clusterInfo().contains("cluster_state:ok")) {
					assertThat(System.nanoTime()).as("restarted node serves again in time").isLessThan(deadline);
					Thread.sleep(20);
				}
			}
			step("restarted Redis, data kept, in " + Duration.ofNanos(System.nanoTime() - started).toMillis() + "ms");
		}

		/** Commands sent through the proxies so far. */
		private long requests() {
			return QueueModelTests.this.proxies.stream().mapToLong(TcpProxy::requests).sum();
		}

		/** Run an operation on another thread and bring a fault while it is in flight. */
		private <T> T under(Fault fault, Callable<T> operation) throws Exception {
			List<TcpProxy> proxies = QueueModelTests.this.proxies;
			if (fault == Fault.LOST_REPLY) {
				// Connected (a reconnect's handshake is not what the proxy counts next).
				for (Instance instance : this.instances) {
					instance.queue().isPaused(queue);
				}
			}
			long requests = requests();
			if (fault == Fault.LOST_REPLY) {
				proxies.forEach(TcpProxy::dropReplies);
			}
			Future<T> answer = QueueModelTests.this.pool.submit(operation);
			try {
				switch (fault) {
					case LOST_REPLY -> {
						long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
						while (requests() == requests && !answer.isDone() && System.nanoTime() < deadline) {
							Thread.sleep(1);
						}
						// It ran, and its reply reached the proxy, which swallowed it.
						Thread.sleep(10);
						count((requests() > requests) ? "fault: reply lost, command sent again"
								: "fault: reply lost, but nothing was sent");
					}
					case CUT -> {
						Thread.sleep(this.random.nextInt(4));
						cut();
						count("fault: connections cut");
					}
					case SCRIPT_FLUSH -> {
						Thread.sleep(this.random.nextInt(3));
						flush();
						count("fault: SCRIPT FLUSH in flight");
					}
					case RESTART -> {
						restartServer();
						count("fault: restart in flight");
					}
				}
			}
			finally {
				if (fault == Fault.LOST_REPLY) {
					proxies.forEach(TcpProxy::heal);
					cut();
				}
			}
			return answer.get(30, TimeUnit.SECONDS);
		}

		/** One of the faults that can be brought while something is in flight. */
		private Fault fault() {
			int choice = this.random.nextInt(100);
			if (QueueModelTests.this.proxies.isEmpty()) {
				return (choice < 70) ? Fault.CUT : Fault.SCRIPT_FLUSH;
			}
			return (choice < 45) ? Fault.LOST_REPLY : (choice < 80) ? Fault.CUT : Fault.SCRIPT_FLUSH;
		}

		/**
		 * An operation of the claim protocol, or an enqueue, with a fault while it is in
		 * flight: several claimed tasks finish at once (their acknowledgements grouped,
		 * their failures settled beside them), a claim, or an enqueue.
		 */
		void underFault(Instance instance) throws Exception {
			Fault fault = fault();
			int what = this.random.nextInt(10);
			if (what < 6) {
				finishUnder(fault, 1 + this.random.nextInt(4));
			}
			else if (what < 8) {
				claimUnder(fault, instance, instance.name() + "w" + this.random.nextInt(2), 1 + this.random.nextInt(3));
			}
			else {
				enqueue(instance, IDS.get(this.random.nextInt(IDS.size())), this.random.nextInt(10) < 3,
						List.of(0L, 0L, 10L).get(this.random.nextInt(3)), fault);
			}
		}

		/** A claim with a fault while it is in flight. */
		void claimUnder(Fault fault, Instance instance, String claimer, int max) throws Exception {
			long sent = now();
			ClaimCall call;
			boolean failed = false;
			try {
				call = under(fault, () -> callClaim(instance, claimer, max));
			}
			catch (java.util.concurrent.ExecutionException ex) {
				if (!connectionReset(ex)) {
					throw ex;
				}
				call = new ClaimCall(claimedByFailedCall(claimer), sent, now());
				failed = true;
				count("claim failed (connection reset): what it claimed read from Redis");
			}
			checkClaim(instance, claimer, max, call, fault + (failed ? " (failed: connection reset)" : ""), failed);
		}

		/**
		 * Restart Redis keeping its data; on a standalone server with acknowledgements in
		 * flight.
		 */
		void restart() throws Exception {
			if (QueueModelTests.this.restartable == null) {
				step("restart: not a local server; connections cut instead");
				count("restart unavailable (not a local server)");
				cut();
				return;
			}
			if (isCluster()) {
				// A restarted cluster node refuses commands (CLUSTERDOWN) for a moment:
				// nothing is in flight.
				restartServer();
				count("fault: restart");
			}
			else {
				finishUnder(Fault.RESTART, 1 + this.random.nextInt(3));
			}
		}

		/**
		 * Finish up to n live claims at once, under a fault: those of one instance, when
		 * it has any (its acknowledgements are grouped), most of them succeeding.
		 */
		void finishUnder(Fault fault, int n) throws Exception {
			Instance instance = this.instances[this.random.nextInt(2)];
			if (this.claims.stream().filter((claim) -> !claim.over && claim.instance == instance).count() < n
					&& !this.paused) {
				claim(instance, "w" + this.random.nextInt(2), n);
			}
			List<Claim> live = new ArrayList<>(
					this.claims.stream().filter((claim) -> !claim.over && claim.instance == instance).toList());
			if (live.isEmpty()) {
				live.addAll(this.claims.stream().filter((claim) -> !claim.over).toList());
			}
			Collections.shuffle(live, this.random);
			// One run per task (a task's handling is looked up by its number).
			List<Claim> batch = new ArrayList<>();
			Set<Integer> numbers = new HashSet<>();
			for (Claim claim : live) {
				if (batch.size() < n && numbers.add(claim.task.number)) {
					batch.add(claim);
				}
			}
			if (batch.isEmpty()) {
				if (fault == Fault.RESTART) {
					restartServer();
					count("fault: restart");
				}
				else {
					step("connections cut with nothing in flight");
					cut();
					count("fault: connections cut with nothing in flight");
				}
				return;
			}
			boolean[] fails = new boolean[batch.size()];
			for (int i = 0; i < batch.size(); i++) {
				Claim claim = batch.get(i);
				fails[i] = this.random.nextInt(100) < this.failShare / 3;
				HANDLING.put(claim.task.id + "/" + claim.task.number, new Handling(fails[i], null, 0));
			}
			long callsBefore = acknowledgementCalls();
			int acks = 0;
			for (int i = 0; i < batch.size(); i++) {
				acks += fails[i] ? 0 : 1;
			}
			RAN.clear();
			List<Execution> executions = under(fault, () -> {
				List<Future<Execution>> running = new ArrayList<>();
				for (Claim claim : batch) {
					running.add(QueueModelTests.this.pool.submit(() -> execute(claim)));
				}
				List<Execution> done = new ArrayList<>();
				for (Future<Execution> execution : running) {
					done.add(execution.get(30, TimeUnit.SECONDS));
				}
				return done;
			});
			long calls = acknowledgementCalls() - callsBefore;
			StringBuilder text = new StringBuilder(fault + " while finishing at once:");
			for (int i = 0; i < batch.size(); i++) {
				text.append(" ")
					.append(batch.get(i).instance.name())
					.append(" runs ")
					.append(batch.get(i).task)
					.append(fails[i] ? " failing" : " succeeding")
					.append(", claim held ")
					.append(executions.get(i).run().isClaimHeld())
					.append(";");
			}
			step(text + " " + calls + " acknowledgement call(s) for " + acks);
			if (calls < acks) {
				count("acknowledgements grouped");
			}
			assertThat(RAN).as("what ran")
				.containsExactlyInAnyOrderElementsOf(batch.stream().map((c) -> c.task.number).toList());
			for (int i = 0; i < batch.size(); i++) {
				Claim claim = batch.get(i);
				if (!claim.held && executions.get(i).run().isClaimHeld()) {
					// A claim already taken away (recovered, the task claimed again),
					// whose
					// outcome's call failed (connection reset) before it ran: the run
					// learnt nothing and recorded nothing. (Had the call run, it would
					// have found the claim gone; had it wrongly recorded the outcome,
					// the task's next claim would find it gone, which the model checks.)
					count("outcome of a lost claim not sent (connection reset)");
					claim.over = true;
					claim.end = executions.get(i).received();
					continue;
				}
				if (claim.held && executions.get(i).run().isClaimHeld() && claim.claimed.token()
					.equals(QueueModelTests.this.raw.opsForHash().get(key("claims"), claim.claimed.handle()))) {
					// Its outcome's call failed (connection reset) before it ran: the
					// claim is
					// left to expire, as a dead worker's.
					count("outcome not recorded (connection reset): its claim expires");
					claim.over = true;
					claim.end = executions.get(i).received();
					continue;
				}
				outcome(claim, executions.get(i), fails[i], null, 0);
			}
		}

		/**
		 * Standalone: an instance's replies are swallowed while some of its claimed tasks
		 * finish at once: the first outcome calls run (their replies lost), the other
		 * acknowledgements queue behind them. Meanwhile the other instance goes on
		 * (enqueues, claims, runs, sleeps: a held-back claim may expire and be recovered,
		 * a retried task claimed again under a new token). Then the instance's
		 * connections are cut: Lettuce sends the calls again, which answer as their first
		 * runs did (the settle records), and the queued acknowledgements go in one call.
		 */
		void holdBackOutcomes(Instance instance) throws Exception {
			int n = 1 + this.random.nextInt(4);
			if (instance.proxy() == null) {
				finishUnder(Fault.CUT, n);
				return;
			}
			if (!this.paused && this.claims.stream()
				.filter((claim) -> !claim.over && claim.held && claim.instance == instance)
				.count() < n) {
				claim(instance, "w" + this.random.nextInt(2), n);
			}
			List<Claim> live = new ArrayList<>(this.claims.stream()
				.filter((claim) -> !claim.over && claim.held && claim.instance == instance)
				.toList());
			Collections.shuffle(live, this.random);
			List<Claim> batch = live.subList(0, Math.min(n, live.size()));
			if (batch.isEmpty()) {
				return;
			}
			boolean[] fails = new boolean[batch.size()];
			for (int i = 0; i < batch.size(); i++) {
				fails[i] = this.random.nextInt(100) < this.failShare / 2;
				HANDLING.put(batch.get(i).task.id + "/" + batch.get(i).task.number, new Handling(fails[i], null, 0));
			}
			Acknowledgements acknowledgements = acknowledgements(instance);
			long callsBefore = (acknowledgements != null) ? acknowledgements.calls() : 0;
			TcpProxy proxy = instance.proxy();
			// The settle script is in Redis's cache: an EVALSHA whose NOSCRIPT answer is
			// swallowed would run only after the cut (a SCRIPT FLUSH is a fault of its
			// own).
			cached("SETTLE");
			// Connected (a reconnect's handshake is not what the proxy counts next).
			instance.queue().isPaused(queue);
			RAN.clear();
			proxy.dropReplies();
			List<Future<Execution>> executions = new ArrayList<>();
			long sent = now();
			boolean[] ran = new boolean[batch.size()];
			try {
				for (Claim claim : batch) {
					executions.add(QueueModelTests.this.pool.submit(() -> execute(claim)));
				}
				// Wait until every outcome either ran in Redis (its reply swallowed) or
				// waits in the acknowledgement queue behind one that did.
				long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
				while (true) {
					int accounted = 0;
					for (int i = 0; i < batch.size(); i++) {
						ran[i] = !batch.get(i).claimed.token()
							.equals(QueueModelTests.this.raw.opsForHash()
								.get(key("claims"), batch.get(i).claimed.handle()));
						accounted += ran[i] ? 1 : 0;
					}
					acknowledgements = acknowledgements(instance);
					if (acknowledgements != null && accounted > 0) {
						accounted += acknowledgements.queued();
					}
					if (accounted == batch.size()) {
						break;
					}
					assertThat(System.nanoTime()).as("outcomes reached Redis or the acknowledgement queue")
						.isLessThan(deadline);
					Thread.sleep(1);
				}
				// The swallowed replies are gone before the cut.
				Thread.sleep(10);
			}
			catch (AssertionError | Exception ex) {
				proxy.heal();
				proxy.cutCommandConnections();
				throw ex;
			}
			long received = now();
			assertThat(RAN).as("what ran")
				.containsExactlyInAnyOrderElementsOf(batch.stream().map((claim) -> claim.task.number).toList());
			StringBuilder text = new StringBuilder(instance.name() + "'s replies swallowed while finishing at once:");
			for (int i = 0; i < batch.size(); i++) {
				Claim claim = batch.get(i);
				text.append(" ")
					.append(claim.task)
					.append(fails[i] ? " failing" : " succeeding")
					.append(ran[i] ? " (ran)" : " (queued)")
					.append(";");
				claim.over = true;
				if (ran[i]) {
					claim.end = received;
					applyOutcome(claim, fails[i], sent, received);
				}
			}
			step(text.toString());
			otherInstanceGoesOn(instance);
			proxy.heal();
			proxy.cutCommandConnections();
			step("cut " + instance.name() + "'s connections");
			for (int i = 0; i < batch.size(); i++) {
				Claim claim = batch.get(i);
				Execution execution = executions.get(i).get(30, TimeUnit.SECONDS);
				if (ran[i]) {
					assertThat(execution.run().isClaimHeld())
						.as("%s: its outcome, sent again, answers as its first run did", claim.task)
						.isTrue();
					count("outcome sent again after other work: answered as its first run");
					if (this.running.containsKey(claim.task.id)
							&& this.running.get(claim.task.id).claimed.handle().equals(claim.claimed.handle())) {
						count("outcome sent again after its task was claimed again");
					}
				}
				else {
					claim.over = false;
					outcome(claim, execution, fails[i], null, 0);
					count(claim.held ? "held-back acknowledgement recorded later"
							: "held-back acknowledgement of a recovered claim dropped");
				}
			}
			acknowledgements = acknowledgements(instance);
			long calls = ((acknowledgements != null) ? acknowledgements.calls() : 0) - callsBefore;
			long acks = 0;
			for (boolean fail : fails) {
				acks += fail ? 0 : 1;
			}
			step(instance.name() + "'s outcomes answered: " + calls + " acknowledgement call(s) for " + acks);
			if (calls < acks) {
				count("acknowledgements grouped");
			}
		}

		/**
		 * While an instance's replies are held back, the other one enqueues, claims, runs
		 * and sleeps (held-back claims may expire and be recovered meanwhile).
		 */
		private void otherInstanceGoesOn(Instance instance) throws Exception {
			Instance other = (instance == this.instances[0]) ? this.instances[1] : this.instances[0];
			int steps = 1 + this.random.nextInt(4);
			for (int i = 0; i < steps; i++) {
				int choice = this.random.nextInt(4);
				if (choice == 0) {
					enqueue(other, IDS.get(this.random.nextInt(IDS.size())), this.random.nextInt(10) < 3, 0);
				}
				else if (choice == 1) {
					claim(other, "w" + this.random.nextInt(2), 1 + this.random.nextInt(3));
				}
				else if (choice == 2) {
					List<Claim> others = this.claims.stream()
						.filter((claim) -> !claim.over && claim.instance == other)
						.toList();
					if (!others.isEmpty()) {
						Claim claim = others.get(this.random.nextInt(others.size()));
						boolean fail = this.random.nextInt(100) < this.failShare;
						HANDLING.put(claim.task.id + "/" + claim.task.number, new Handling(fail, null, 0));
						run(claim, fail, null, 0);
					}
				}
				else {
					sleep(20 + this.random.nextInt(60));
				}
			}
		}

		/** Put a queue script in Redis's cache, so that its EVALSHA runs at once. */
		private void cached(String script) {
			QueueModelTests.this.admin
				.scriptLoad(((org.springframework.data.redis.core.script.RedisScript<?>) ReflectionTestUtils
					.getField(RedisTaskQueue.class, script)).getScriptAsString());
		}

		/**
		 * Standalone: a claim whose reply is swallowed: its first run claims (what it did
		 * is read from Redis and checked then), the other instance goes on (the claimed
		 * tasks may expire and be recovered), then the connections are cut and Lettuce
		 * sends the claim again. Its answer must be what its first run did: the tasks it
		 * claimed that it still holds, the tasks it dead-lettered; when the first run did
		 * nothing, the call sent again is a claim like any other.
		 */
		void holdBackClaim(Instance instance) throws Exception {
			String claimer = instance.name() + "w" + this.random.nextInt(2);
			int max = 1 + this.random.nextInt(3);
			TcpProxy proxy = instance.proxy();
			if (proxy == null) {
				claimUnder(Fault.CUT, instance, claimer, max);
				return;
			}
			cached("CLAIM");
			// Connected (a reconnect's handshake is not what the proxy counts next).
			instance.queue().isPaused(queue);
			long requests = proxy.requests();
			proxy.dropReplies();
			long sent = now();
			Future<ClaimCall> answer = QueueModelTests.this.pool.submit(() -> callClaim(instance, claimer, max));
			RedisTaskQueue.Claimed firstRun;
			try {
				long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
				while (proxy.requests() == requests) {
					assertThat(System.nanoTime()).as("claim sent").isLessThan(deadline);
					Thread.sleep(1);
				}
				Thread.sleep(10);
				firstRun = claimedByFailedCall(claimer);
			}
			catch (AssertionError | Exception ex) {
				proxy.heal();
				proxy.cutCommandConnections();
				throw ex;
			}
			int before = this.claims.size();
			List<String> buried = checkClaim(instance, claimer, max, new ClaimCall(firstRun, sent, now()),
					"reply swallowed, first run read from Redis", false, true);
			List<Claim> firstClaims = new ArrayList<>(this.claims.subList(before, this.claims.size()));
			// The worker has not got them yet.
			firstClaims.forEach((claim) -> claim.over = true);
			otherInstanceGoesOn(instance);
			proxy.heal();
			proxy.cutCommandConnections();
			long resent = now();
			RedisTaskQueue.Claimed again = answer.get(30, TimeUnit.SECONDS).claimed();
			long received = now();
			if (firstClaims.isEmpty() && buried.isEmpty()) {
				count("claim sent again after other work: its first run did nothing, claimed afresh");
				checkClaim(instance, claimer, max, new ClaimCall(again, resent, received), "sent again after a cut",
						false);
				return;
			}
			step(claimer + " claim sent again after a cut -> "
					+ again.tasks().stream().map((task) -> task.id() + "/" + task.payload()).toList()
					+ " dead-lettered " + again.deadLettered());
			assertThat(again.deadLettered()).as("the tasks its first run dead-lettered, named again")
				.containsExactlyInAnyOrderElementsOf(buried);
			List<RedisTaskQueue.ClaimedTask> stillHeld = firstClaims.stream()
				.filter((claim) -> claim.held)
				.map((claim) -> claim.claimed)
				.toList();
			assertThat(again.tasks()).as("the tasks its first run claimed that it still holds")
				.containsExactlyInAnyOrderElementsOf(stillHeld);
			count("claim sent again after other work: answered as its first run");
			if (stillHeld.size() < firstClaims.size()) {
				count("claim sent again after other work: without the claims recovered meanwhile");
			}
			if (!buried.isEmpty()) {
				count("claim sent again after other work: names its dead-lettered tasks");
			}
			// Its worker gets them now.
			firstClaims.stream().filter((claim) -> claim.held).forEach((claim) -> claim.over = false);
		}

		private Acknowledgements acknowledgements(Instance instance) {
			Map<?, ?> acknowledgements = (Map<?, ?>) ReflectionTestUtils.getField(instance.workers(),
					"acknowledgements");
			return (acknowledgements != null) ? (Acknowledgements) acknowledgements.get(queue) : null;
		}

		/** Acknowledgement calls the two instances made so far. */
		private long acknowledgementCalls() {
			long calls = 0;
			for (Instance instance : this.instances) {
				Map<?, ?> acknowledgements = (Map<?, ?>) ReflectionTestUtils.getField(instance.workers(),
						"acknowledgements");
				Acknowledgements mine = (acknowledgements != null) ? (Acknowledgements) acknowledgements.get(queue)
						: null;
				calls += (mine != null) ? mine.calls() : 0;
			}
			return calls;
		}

		void pauseOrResume(Instance instance) {
			if (this.paused) {
				instance.queue().resume(queue);
				count("resumed");
			}
			else {
				instance.queue().pause(queue);
				count("paused");
			}
			this.paused = !this.paused;
			step(instance.name() + (this.paused ? " pauses" : " resumes"));
			assertThat(this.instances[0].queue().isPaused(queue)).as("paused").isEqualTo(this.paused);
		}

		/**
		 * A cancel of an id on one thread and a claim on another, started together. The
		 * id has waiting tasks and no run (else the claim could not take its task).
		 * Either the claim took one of its tasks and the cancel removed the others, or
		 * the claim took none (it ran after the cancel, or had no room or found none due)
		 * and the cancel removed them all; in both cases none of the id waits afterwards.
		 */
		void cancelRacingClaim(Instance instance) throws Exception {
			List<String> candidates = IDS.stream()
				.filter((id) -> this.waiting.containsKey(id) && !this.running.containsKey(id))
				.toList();
			String id = candidates.isEmpty() ? IDS.get(this.random.nextInt(IDS.size()))
					: candidates.get(this.random.nextInt(candidates.size()));
			Instance other = this.instances[this.random.nextInt(2)];
			String claimer = instance.name() + "w" + this.random.nextInt(2);
			int max = 1 + this.random.nextInt(3);
			List<Task> twins = new ArrayList<>(this.waiting.getOrDefault(id, List.of()));
			if (this.running.containsKey(id)) {
				// A claim may recover its run's expired claim: no race then.
				boolean cancelled = other.queue().cancel(queue, id);
				step(other.name() + " cancel " + id + " (waiting: " + twins + ") -> " + cancelled);
				count("cancel of an id that runs");
				assertThat(cancelled).as("cancel of %s", id).isEqualTo(!twins.isEmpty());
				twins.forEach((task) -> {
					stopWaiting(task);
					end(task, State.REMOVED);
				});
				return;
			}
			CountDownLatch go = new CountDownLatch(1);
			Future<Boolean> cancel = QueueModelTests.this.pool.submit(() -> {
				go.await();
				return other.queue().cancel(queue, id);
			});
			go.countDown();
			ClaimCall call = callClaim(instance, claimer, max);
			boolean cancelled = cancel.get(30, TimeUnit.SECONDS);
			boolean claimedIt = call.claimed().tasks().stream().anyMatch((task) -> task.id().equals(id));
			step(other.name() + " cancel " + id + " (waiting: " + twins + ") racing a claim -> " + cancelled);
			if (claimedIt) {
				count("cancel raced a claim: the claim came first");
				checkClaim(instance, claimer, max, call, null, false);
				List<Task> rest = new ArrayList<>(this.waiting.getOrDefault(id, List.of()));
				assertThat(cancelled).as("cancel of %s after the claim took one of its tasks", id)
					.isEqualTo(!rest.isEmpty());
				rest.forEach((task) -> {
					stopWaiting(task);
					end(task, State.REMOVED);
				});
			}
			else {
				count(twins.isEmpty() ? "cancel raced a claim: nothing to cancel"
						: "cancel raced a claim: the claim took none of its tasks");
				assertThat(cancelled).as("cancel of %s", id).isEqualTo(!twins.isEmpty());
				twins.forEach((task) -> {
					stopWaiting(task);
					end(task, State.REMOVED);
				});
				checkClaim(instance, claimer, max, call, null, false);
			}
			assertThat(instance.queue().find(queue, id)).as("a waiting task of %s after its cancel", id).isEmpty();
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

		void enqueue(Instance instance, String id, boolean replace, long delay) throws Exception {
			enqueue(instance, id, replace, delay, null);
		}

		/**
		 * Enqueue, with a fault while the call is in flight unless {@code fault} is null.
		 */
		void enqueue(Instance instance, String id, boolean replace, long delay, Fault fault) throws Exception {
			int number = this.nextTask;
			Duration wait = Duration.ofMillis(delay);
			Callable<Boolean> call = () -> {
				if (replace) {
					instance.queue().enqueueOrReplace(queue, id, List.of(id, number), wait);
					return true;
				}
				return instance.queue().enqueue(queue, id, List.of(id, number), wait);
			};
			long sent = now();
			boolean enqueued;
			try {
				enqueued = (fault != null) ? under(fault, call) : call.call();
			}
			catch (java.util.concurrent.ExecutionException ex) {
				if (!connectionReset(ex)) {
					throw ex;
				}
				// Did it run? Its task waits if so.
				boolean ran = waitingPayloads(id).stream().anyMatch((payload) -> payload.endsWith("," + number + "]"));
				step(fault + ": " + instance.name() + " enqueue " + id + "/" + number + (replace ? " REPLACE" : " KEEP")
						+ " failed (connection reset); " + (ran ? "it ran" : "it did not run"));
				count("enqueue failed (connection reset)" + (ran ? " after it ran" : " before it ran"));
				if (!ran) {
					this.nextTask++;
					if (!replace && this.waiting.containsKey(id)) {
						count("kept");
					}
					return;
				}
				enqueued = true;
			}
			long received = now();
			Task task = predictEnqueue(id, replace, delay, sent, received);
			if (task == null) {
				this.nextTask++;
			}
			step(((fault != null) ? fault + ": " : "") + instance.name() + " enqueue " + id + "/" + number
					+ (replace ? " REPLACE" : " KEEP") + " delay " + delay + " -> " + enqueued);
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
			String claimer = instance.name() + worker;
			checkClaim(instance, claimer, max, callClaim(instance, claimer, max), null, false);
		}

		ClaimCall callClaim(Instance instance, String claimer, int max) {
			long sent = now();
			RedisTaskQueue.Claimed claimed = instance.queue()
				.claim(queue, max, claimer, instance.workers().getSettings());
			return new ClaimCall(claimed, sent, now());
		}

		/**
		 * Check a claim's answer against the model and apply it.
		 * @param fault the fault brought while it was in flight, or null: a claim sent
		 * again answers as its first run did (the tasks it claimed and those it
		 * dead-lettered)
		 * @param failed whether the call failed (its connection reset): it may not have
		 * run, and what it claimed (read from Redis) no worker got
		 */
		void checkClaim(Instance instance, String claimer, int max, ClaimCall call, String fault, boolean failed) {
			checkClaim(instance, claimer, max, call, fault, failed, false);
		}

		/**
		 * Check a claim as above.
		 * @param pending whether the call's answer is still to come (what it claimed was
		 * read from Redis; what it dead-lettered is returned, for that answer to name)
		 * @return the tasks it dead-lettered
		 */
		List<String> checkClaim(Instance instance, String claimer, int max, ClaimCall call, String fault,
				boolean failed, boolean pending) {
			RedisTaskQueue.Claimed claimed = call.claimed();
			long sent = call.sent();
			long received = call.received();
			step(((fault != null) ? fault + ": " : "") + claimer + " claim " + max + " -> "
					+ claimed.tasks().stream().map((task) -> task.id() + "/" + task.payload()).toList()
					+ " dead-lettered " + claimed.deadLettered() + (this.paused ? " (paused)" : ""));
			// Which earlier claims did this call recover? Ask Redis, then check that the
			// answer is possible.
			String claimsKey = "redislock:queue:{" + queue + "}:claims";
			List<String> expectedDead = new ArrayList<>();
			Set<String> recovered = new HashSet<>();
			for (Claim claim : new ArrayList<>(this.running.values())) {
				boolean held = claim.claimed.token()
					.equals(QueueModelTests.this.raw.opsForHash().get(claimsKey, claim.claimed.handle()));
				if (held) {
					// (A failed call may not have run: it recovered nothing then.)
					if (!failed) {
						assertThat(claim.deadlineTo)
							.as("%s: a claim whose deadline passed before the claim was sent is recovered", claim.task)
							.isGreaterThan(sent);
					}
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
			if (failed && !expectedDead.isEmpty()) {
				// Its answer was lost with the connection: what it buried is read from
				// Redis.
				count("claim failed (connection reset) after it dead-lettered tasks");
			}
			else if (!pending) {
				assertThat(claimed.deadLettered()).as("tasks dead-lettered because their workers never reported back")
					.containsExactlyInAnyOrderElementsOf(expectedDead);
			}
			if (this.paused) {
				assertThat(claimed.tasks()).as("tasks claimed from a paused queue").isEmpty();
				if (this.waiting.values().stream().flatMap(List::stream).anyMatch((task) -> task.dueTo <= sent)) {
					count("paused queue gave no due task");
				}
			}
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
				if (failed) {
					// No worker got it: it is left to expire.
					claim.over = true;
					claim.end = received;
				}
			}
			if (claimed.tasks().size() < max && !this.paused && !failed) {
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
			return expectedDead;
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
			RAN.clear();
			Execution execution = execute(claim);
			step(claim.instance.name() + " runs " + claim.task + (fail ? " failing" : " succeeding")
					+ ((nestedId != null) ? ", nested call " + nestedId + "/" + nestedTask : "") + "; claim held "
					+ execution.run().isClaimHeld());
			assertThat(RAN).as("what ran for %s: only its own body (a nested call is enqueued)", claim.task)
				.containsExactly(claim.task.number);
			outcome(claim, execution, fail, nestedId, nestedTask);
		}

		/** Run a claimed task through the real worker code (any thread). */
		private Execution execute(Claim claim) {
			QueueWorkers workers = claim.instance.workers();
			TaskRun run = new TaskRun(claim.claimed, System.nanoTime());
			long sent = now();
			workers.run(workers.handler(queue), run);
			return new Execution(run, sent, now());
		}

		/** Check and apply what a run recorded. */
		private void outcome(Claim claim, Execution execution, boolean fail, String nestedId, int nestedTask) {
			TaskRun run = execution.run();
			long sent = execution.sent();
			long received = execution.received();
			claim.over = true;
			claim.end = received;
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
			applyOutcome(claim, fail, sent, received);
		}

		/** A held claim's outcome was recorded between sent and received. */
		private void applyOutcome(Claim claim, boolean fail, long sent, long received) {
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
			if (this.paused) {
				this.instances[0].queue().resume(queue);
				this.paused = false;
				step("resume");
			}
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
					"dead-info", "dead-payloads", "parked", "paused")) {
				String key = "redislock:queue:{" + queue + "}:" + suffix;
				assertThat(QueueModelTests.this.raw.hasKey(key)).as("%s left after a full drain", key).isFalse();
			}
			checkKeysLeft();
		}

		/**
		 * After a full drain the only keys left are the short-lived ones, each bounded
		 * and expiring: the settle records (a minute, at most 10,000), the claim calls'
		 * own keys (a minute), the idle mark (until the idle workers look again by
		 * themselves) and dedup marks (none here).
		 */
		private void checkKeysLeft() {
			String prefix = key("");
			boolean claimCalls = false;
			long idleAtMost = this.instances[0].workers().getSettings().pollInterval().toMillis() + 250;
			for (String key : QueueModelTests.this.admin.keys(prefix + "*")) {
				String suffix = key.substring(prefix.length());
				long ttl = QueueModelTests.this.admin.pttl(key);
				if (ttl == -2) {
					// Expired since it was listed.
					continue;
				}
				if (suffix.equals("settled")) {
					assertThat(ttl).as("time to live of %s", key).isBetween(0L, 60_000L);
					assertThat(QueueModelTests.this.admin.zcard(key)).as("records in %s", key).isBetween(1L, 10_000L);
					count("drained: settle records left, expiring");
				}
				else if (suffix.startsWith("claim:")) {
					assertThat(ttl).as("time to live of %s", key).isBetween(0L, 60_000L);
					claimCalls = true;
				}
				else if (suffix.equals("idle")) {
					assertThat(ttl).as("time to live of %s", key).isBetween(0L, idleAtMost);
				}
				else if (suffix.equals("dedup")) {
					assertThat(ttl).as("time to live of %s", key).isNotNegative();
				}
				else {
					throw new AssertionError(key + " left after a full drain");
				}
			}
			if (claimCalls) {
				count("drained: claim call keys left, expiring");
			}
		}

	}

}
