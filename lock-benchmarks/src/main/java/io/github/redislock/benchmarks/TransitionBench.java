package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.test.LocalRedisServer;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Hand-off latency across transitions (issue #27): from the holder's {@code unlock()}
 * returning to the waiter's {@code tryLock} returning, the waiter on a lock template and
 * connection factory of its own (another application instance, in this JVM), the holder
 * with a 30 s lease, so that a missed wake-up shows as seconds. Measured in steady state
 * and right after a transition:
 * <ul>
 * <li>one server: {@code CLIENT KILL TYPE pubsub} (the waiter's release subscription is
 * cut; Lettuce reconnects and subscribes again), the release sent at once or 50 ms
 * later;</li>
 * <li>a six-node Cluster: the lock's slot moved to another master, or the lock's master
 * replaced by its replica ({@code CLUSTER FAILOVER TAKEOVER}), the release sent as soon
 * as the transition returned.</li>
 * </ul>
 * Scenarios alternate in an order rotated per round. For each transition it also notes
 * when the waiter's subscription was back where it belongs (the server, or the node that
 * now serves the slot), polled every millisecond from the transition's start.
 */
final class TransitionBench {

	static final Duration LEASE = Duration.ofSeconds(30);

	static final Duration WAIT = Duration.ofSeconds(60);

	/** A hand-off slower than this counts as a missed wake-up. */
	static final long LATE_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** A scenario stops after this many missed wake-ups (each costs up to a lease). */
	static final int MAX_LATE = 3;

	/** Steady hand-offs before the measured ones. */
	static final int WARM_UP = 200;

	/** How long the subscription's return is looked for. */
	static final long BACK_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

	private TransitionBench() {
	}

	/** The samples of one scenario. */
	static final class Row {

		final List<Long> handOffs = new ArrayList<>();

		final List<Long> backs = new ArrayList<>();

		int notBack;

		int failures;

		int notSubscribedBefore;

		final List<String> notes = new ArrayList<>();

		long late() {
			return this.handOffs.stream().filter((nanos) -> nanos > LATE_NANOS).count();
		}

		boolean stopped() {
			return late() >= MAX_LATE;
		}

	}

	/** A transition that began: when, and when its subscription was seen back. */
	record Started(long startNanos, Future<Long> back) {

	}

	interface Transition {

		/**
		 * Run the transition; {@code null} in steady state.
		 */
		Started run() throws Exception;

	}

	static Map<String, Row> run(int samples, Consumer<String> progress) throws Exception {
		Map<String, Row> rows = new LinkedHashMap<>();
		ExecutorService pollers = Executors.newCachedThreadPool((runnable) -> {
			Thread thread = new Thread(runnable, "transition-probe");
			thread.setDaemon(true);
			return thread;
		});
		try {
			standalone(samples, rows, pollers, progress);
			cluster(samples, rows, pollers, progress);
		}
		finally {
			pollers.shutdownNow();
		}
		return rows;
	}

	private static void standalone(int samples, Map<String, Row> rows, ExecutorService pollers,
			Consumer<String> progress) throws Exception {
		String name = "transitions-standalone";
		String channel = "redislock:{" + name + "}:released";
		RedisClient client = RedisClient.create();
		try (LocalRedisServer server = LocalRedisServer.start();
				StatefulRedisConnection<String, String> admin = client
					.connect(RedisURI.create("127.0.0.1", server.port()));
				StatefulRedisConnection<String, String> probe = client
					.connect(RedisURI.create("127.0.0.1", server.port()));
				Pair pair = new Pair(() -> Columns.connectionFactory(server.port()), name)) {
			BooleanSupplier subscribed = () -> count(probe.sync().pubsubNumsub(channel), channel) >= 1;
			Map<String, Transition> scenarios = new LinkedHashMap<>();
			scenarios.put("one server, steady state", () -> null);
			scenarios.put("one server, release right after CLIENT KILL TYPE pubsub",
					() -> kill(admin.sync(), pollers, subscribed, 0));
			scenarios.put("one server, release 50 ms after CLIENT KILL TYPE pubsub",
					() -> kill(admin.sync(), pollers, subscribed, 50));
			measure(pair, scenarios, subscribed, samples, rows, progress);
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private static Started kill(RedisCommands<String, String> admin, ExecutorService pollers,
			BooleanSupplier subscribed, long releaseAfterMillis) {
		long start = System.nanoTime();
		admin.clientKill(KillArgs.Builder.typePubsub());
		// The kill is done when it answers: polled from then on.
		Future<Long> back = poll(pollers, subscribed);
		if (releaseAfterMillis > 0) {
			Measure.sleep(releaseAfterMillis);
		}
		return new Started(start, back);
	}

	private static void cluster(int samples, Map<String, Row> rows, ExecutorService pollers, Consumer<String> progress)
			throws Exception {
		String name = "transitions-cluster";
		String channel = "redislock:{" + name + "}:released";
		int slot = SlotHash.getSlot(name);
		progress.accept("transitions: starting a six-node cluster");
		try (BenchCluster cluster = BenchCluster.start();
				Pair pair = new Pair(cluster::connectionFactory, name);
				Probes probes = new Probes(cluster)) {
			int[] shard = { BenchCluster.initialShardOf(slot) };
			BooleanSupplier subscribed = () -> probes.shardSubscribers(cluster.masterOf(shard[0]), channel) >= 1;
			Map<String, Transition> scenarios = new LinkedHashMap<>();
			scenarios.put("Cluster, steady state", () -> null);
			scenarios.put("Cluster, release right after the lock's slot moved to another master", () -> {
				int to = (shard[0] + 1) % 3;
				int target = cluster.masterOf(to);
				Future<Long> back = poll(pollers, () -> probes.shardSubscribers(target, channel) >= 1);
				long start = System.nanoTime();
				cluster.moveSlot(slot, shard[0], to);
				shard[0] = to;
				return new Started(start, back);
			});
			scenarios.put("Cluster, release right after a replica took over the lock's master", () -> {
				// The lock (taken just before) is on the replica before it takes over.
				cluster.awaitReplicaInSync(shard[0]);
				int replica = cluster.replicaOf(shard[0]);
				Future<Long> back = poll(pollers, () -> probes.shardSubscribers(replica, channel) >= 1);
				long start = System.nanoTime();
				cluster.takeOver(shard[0]);
				return new Started(start, back);
			});
			measure(pair, scenarios, subscribed, samples, rows, progress);
		}
	}

	/**
	 * Interleave the scenarios round by round (order rotated per round) after a warm-up
	 * of steady hand-offs.
	 */
	private static void measure(Pair pair, Map<String, Transition> scenarios, BooleanSupplier subscribed, int samples,
			Map<String, Row> rows, Consumer<String> progress) throws Exception {
		for (int i = 0; i < WARM_UP; i++) {
			pair.handOff(subscribed, () -> null, new Row());
		}
		List<String> names = new ArrayList<>(scenarios.keySet());
		names.forEach((scenario) -> rows.put(scenario, new Row()));
		for (int round = 0; round < samples; round++) {
			progress.accept("transitions round " + round + " of " + samples + " (" + names.get(0) + ")");
			for (int i = 0; i < names.size(); i++) {
				String scenario = names.get((round + i) % names.size());
				Row row = rows.get(scenario);
				if (!row.stopped()) {
					pair.handOff(subscribed, scenarios.get(scenario), row);
				}
			}
		}
		rows.forEach((scenario, row) -> {
			if (scenarios.containsKey(scenario) && row.stopped()) {
				row.notes.add("stopped after " + row.handOffs.size() + " samples: " + MAX_LATE
						+ " hand-offs took longer than 1 s");
			}
		});
	}

	private static Future<Long> poll(ExecutorService pollers, BooleanSupplier back) {
		return pollers.submit(() -> {
			long deadline = System.nanoTime() + BACK_TIMEOUT_NANOS;
			while (System.nanoTime() < deadline) {
				try {
					if (back.getAsBoolean()) {
						return System.nanoTime();
					}
				}
				catch (RuntimeException ex) {
					// A node that is changing roles: ask again.
				}
				LockSupport.parkNanos(1_000_000);
			}
			return -1L;
		});
	}

	private static long count(Map<String, Long> counts, String channel) {
		Long count = counts.get(channel);
		return (count != null) ? count : 0;
	}

	/**
	 * A holder and a waiter, each a lock template on a connection factory of its own; the
	 * waiter's calls run on a thread of their own.
	 */
	private static final class Pair implements AutoCloseable {

		private final List<LettuceConnectionFactory> factories = new ArrayList<>();

		private final List<DefaultRedisLockTemplate> templates = new ArrayList<>();

		private final RedisLock held;

		private final RedisLock waited;

		private final AtomicReference<Thread> waiterThread = new AtomicReference<>();

		private final ExecutorService waiter = Executors.newSingleThreadExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "transition-waiter");
			thread.setDaemon(true);
			this.waiterThread.set(thread);
			return thread;
		});

		Pair(Supplier<LettuceConnectionFactory> factory, String name) {
			for (int i = 0; i < 2; i++) {
				LettuceConnectionFactory connectionFactory = factory.get();
				this.factories.add(connectionFactory);
				this.templates
					.add(new DefaultRedisLockTemplate(connectionFactory, LockSettings.DEFAULTS.withLeaseTime(LEASE)));
			}
			this.held = this.templates.get(0).getLock(name);
			this.waited = this.templates.get(1).getLock(name);
		}

		/**
		 * One hand-off: the holder takes the lock, the waiter blocks in {@code tryLock}
		 * (its thread parked, its subscription in place), the transition runs, the holder
		 * unlocks.
		 */
		void handOff(BooleanSupplier subscribed, Transition transition, Row row) throws Exception {
			if (!this.held.tryLock(Duration.ZERO, LEASE)) {
				throw new IllegalStateException("The holder could not take the free lock");
			}
			CountDownLatch calling = new CountDownLatch(1);
			Future<Long> acquired = this.waiter.submit(() -> {
				calling.countDown();
				boolean got = this.waited.tryLock(WAIT, LEASE);
				long at = System.nanoTime();
				if (!got) {
					return -1L;
				}
				this.waited.unlock();
				return at;
			});
			calling.await();
			if (!awaitParked(subscribed)) {
				row.notSubscribedBefore++;
			}
			Started started = transition.run();
			long released;
			try {
				this.held.unlock();
			}
			catch (RuntimeException ex) {
				row.failures++;
				row.notes.add("unlock failed: " + ex);
			}
			released = System.nanoTime();
			long at;
			try {
				at = acquired.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS);
			}
			catch (java.util.concurrent.ExecutionException ex) {
				row.failures++;
				row.notes.add("tryLock failed: " + ex.getCause());
				return;
			}
			if (at < 0) {
				row.failures++;
				row.notes.add("tryLock returned false after " + WAIT);
				return;
			}
			row.handOffs.add(at - released);
			if (started != null) {
				long back = started.back().get();
				if (back < 0) {
					row.notBack++;
				}
				else {
					row.backs.add(back - started.startNanos());
				}
			}
		}

		/**
		 * Wait until the waiter's thread is parked and its subscription is in place;
		 * false when that did not happen within 10 s (the sample is taken anyway).
		 */
		private boolean awaitParked(BooleanSupplier subscribed) {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (System.nanoTime() < deadline) {
				Thread thread = this.waiterThread.get();
				if (thread != null && thread.getState() == Thread.State.TIMED_WAITING && subscribed.getAsBoolean()) {
					// Its last attempt after the subscription was confirmed is done.
					Measure.sleep(5);
					return true;
				}
				Measure.sleep(1);
			}
			return false;
		}

		@Override
		public void close() throws Exception {
			this.waiter.shutdownNow();
			for (DefaultRedisLockTemplate template : this.templates) {
				template.destroy();
			}
			this.factories.forEach(LettuceConnectionFactory::destroy);
		}

	}

	/**
	 * Connections of their own to every Cluster node, for the pollers.
	 */
	private static final class Probes implements AutoCloseable {

		private final RedisClient client = RedisClient.create();

		private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

		Probes(BenchCluster cluster) {
			for (int node = 0; node < 6; node++) {
				this.connections.add(this.client.connect(RedisURI.create("127.0.0.1", cluster.port(node))));
			}
		}

		long shardSubscribers(int node, String channel) {
			return count(this.connections.get(node).sync().pubsubShardNumsub(channel), channel);
		}

		@Override
		public void close() {
			this.connections.forEach(StatefulRedisConnection::close);
			this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}

	}

	static String millis(double nanos) {
		return String.format(Locale.ROOT, "%,.3f", nanos / 1e6);
	}

}
