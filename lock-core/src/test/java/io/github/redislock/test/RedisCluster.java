package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real Redis Cluster on this machine: six {@code redis-server} processes with
 * {@code cluster-enabled yes} on free loopback ports, three masters (slots split in
 * thirds) with one replica each, joined with CLUSTER MEET / ADDSLOTS / REPLICATE. Ready
 * once every node reports {@code cluster_state:ok}; closing it stops every process.
 */
public final class RedisCluster implements RedisTarget, AutoCloseable {

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

	private static final int SLOTS = 16384;

	private final List<LocalRedisServer> nodes;

	private final ConnectionFactories factories = new ConnectionFactories();

	private final AtomicInteger nextMaster = new AtomicInteger();

	/** The certificates of a Cluster that speaks TLS only, or {@code null}. */
	private final TestCertificates tls;

	private RedisCluster(List<LocalRedisServer> nodes, TestCertificates tls) {
		this.nodes = nodes;
		this.tls = tls;
	}

	public static RedisCluster start() {
		return start(null);
	}

	/**
	 * Start a Cluster whose nodes speak TLS only: to clients ({@code --port 0},
	 * {@code --tls-port}), to each other ({@code --tls-cluster yes}) and to their
	 * replicas ({@code --tls-replication yes}), with these certificates. Every connection
	 * of the fixture uses TLS, trusting the test CA.
	 */
	public static RedisCluster startTls(TestCertificates certificates) {
		return start(certificates);
	}

	private static RedisCluster start(TestCertificates tls) {
		List<LocalRedisServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < 6; i++) {
				String[] arguments = { "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
						"--cluster-node-timeout", "5000", "--repl-diskless-sync-delay", "0" };
				nodes.add((tls != null)
						? LocalRedisServer.startTls(tls,
								concat(arguments, "--tls-cluster", "yes", "--tls-replication", "yes"))
						: LocalRedisServer.start(arguments));
			}
			RedisCluster cluster = new RedisCluster(nodes, tls);
			cluster.join();
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(LocalRedisServer::close);
			throw ex;
		}
	}

	private static String[] concat(String[] first, String... more) {
		String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
		System.arraycopy(more, 0, all, first.length, more.length);
		return all;
	}

	/**
	 * Return the certificates of a Cluster that speaks TLS only, or {@code null}.
	 */
	public TestCertificates tls() {
		return this.tls;
	}

	/** A client of single nodes, trusting the test CA when the nodes speak TLS. */
	private RedisClient nodeClient() {
		RedisClient client = RedisClient.create();
		if (this.tls != null) {
			client.setOptions(this.tls.clientOptions());
		}
		return client;
	}

	private void join() {
		RedisClient client = nodeClient();
		try {
			List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
			for (LocalRedisServer node : this.nodes) {
				connections.add(client.connect(node.redisUri()));
			}
			List<RedisCommands<String, String>> commands = connections.stream()
				.map(StatefulRedisConnection::sync)
				.toList();
			for (int i = 0; i < 3; i++) {
				commands.get(i).clusterAddSlots(IntStream.range(firstSlot(i), firstSlot(i + 1)).toArray());
			}
			for (int i = 1; i < 6; i++) {
				commands.get(i).clusterMeet(this.nodes.get(0).host(), this.nodes.get(0).port());
			}
			await("all nodes to know each other",
					() -> commands.stream().allMatch((node) -> node.clusterInfo().contains("cluster_known_nodes:6")));
			for (int i = 0; i < 3; i++) {
				String masterId = commands.get(i).clusterMyId();
				RedisCommands<String, String> replica = commands.get(i + 3);
				await("replica to see its master", () -> replica.clusterNodes().contains(masterId));
				replica.clusterReplicate(masterId);
			}
			await("cluster_state:ok on every node",
					() -> commands.stream().allMatch((node) -> node.clusterInfo().contains("cluster_state:ok")));
			await("every replica in sync with its master",
					() -> commands.subList(3, 6)
						.stream()
						.allMatch((node) -> node.info("replication").contains("master_link_status:up")));
			connections.forEach(StatefulRedisConnection::close);
		}
		finally {
			client.shutdown();
		}
	}

	private static int firstSlot(int master) {
		return (master == 3) ? SLOTS : master * (SLOTS / 3);
	}

	private static void await(String what, java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(
						"Redis Cluster not ready within " + READY_TIMEOUT + ": waiting for " + what);
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + what, ex);
			}
		}
	}

	@Override
	public LettuceConnectionFactory connectionFactory() {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		for (LocalRedisServer node : this.nodes.subList(0, 3)) {
			configuration.clusterNode(node.host(), node.port());
		}
		if (this.tls != null) {
			return this.factories.start(new LettuceConnectionFactory(configuration,
					LettuceClientConfiguration.builder()
						.useSsl()
						.and()
						.clientOptions(this.tls.clusterClientOptions())
						.build()));
		}
		return this.factories.start(new LettuceConnectionFactory(configuration));
	}

	/**
	 * Return a name on the next master in turn: {@code base} with a suffix whose hash tag
	 * slot that master serves.
	 */
	@Override
	public String lockName(String base) {
		int master = this.nextMaster.getAndIncrement() % 3;
		for (int suffix = 0;; suffix++) {
			String name = base + "-" + suffix;
			int slot = ClusterSlotHashUtil.calculateSlot(name);
			if (slot >= firstSlot(master) && slot < firstSlot(master + 1)) {
				return name;
			}
		}
	}

	/**
	 * Return which master (0, 1 or 2) serves a lock name's slot.
	 */
	public static int masterOf(String lockName) {
		int slot = ClusterSlotHashUtil.calculateSlot(lockName);
		int master = 0;
		while (slot >= firstSlot(master + 1)) {
			master++;
		}
		return master;
	}

	public List<LocalRedisServer> nodes() {
		return this.nodes;
	}

	/**
	 * Return the node (3, 4 or 5) that the cluster was built with as the replica of a
	 * master (0, 1 or 2).
	 */
	public LocalRedisServer replicaOf(int master) {
		return this.nodes.get(master + 3);
	}

	/**
	 * Run commands on one node, on a plain connection of its own (in READONLY mode, so
	 * that a replica answers reads of its master's keys).
	 */
	public <T> T onNode(int node, java.util.function.Function<RedisCommands<String, String>, T> commands) {
		RedisClient client = nodeClient();
		try (StatefulRedisConnection<String, String> connection = client.connect(this.nodes.get(node).redisUri())) {
			// Replicas answer reads of their master's keys only in READONLY mode.
			connection.sync().readOnly();
			return commands.apply(connection.sync());
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("Node " + node + " (" + this.nodes.get(node) + ") failed: " + ex, ex);
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	/**
	 * Return how often a node has run a command since it started or since
	 * {@link #resetStatistics()} (from {@code INFO commandstats}).
	 */
	public long calls(int node, String command) {
		String stats = onNode(node, (commands) -> commands.info("commandstats"));
		String prefix = "cmdstat_" + command.toLowerCase(java.util.Locale.ROOT) + ":calls=";
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith(prefix)) {
				String rest = line.substring(prefix.length());
				int end = rest.indexOf(',');
				return Long.parseLong((end < 0) ? rest : rest.substring(0, end));
			}
		}
		return 0;
	}

	/**
	 * Reset the command statistics of every node ({@code CONFIG RESETSTAT}).
	 */
	public void resetStatistics() {
		for (int node = 0; node < this.nodes.size(); node++) {
			onNode(node, RedisCommands::configResetstat);
		}
	}

	/**
	 * Move one slot, with its keys, from one master to another, as {@code redis-cli
	 * --cluster reshard} does: IMPORTING on the target, MIGRATING on the source, MIGRATE
	 * of its keys, then the new owner announced to every master. Replicas are not asked
	 * (one may be frozen); they learn it from their masters. The masters are the nodes
	 * the cluster was built with (0, 1 and 2).
	 */
	public void moveSlot(int slot, int from, int to) {
		moveSlotAmong(slot, from, to, 0, 1, 2);
	}

	/**
	 * Promote a replica to master at once ({@code CLUSTER FAILOVER TAKEOVER}), as an
	 * operator does when its master died, and wait until the cluster is ok again.
	 */
	public void takeOver(int replica) {
		onNode(replica, (commands) -> commands.clusterFailover(false, true));
		await("node " + replica + " to be master and the cluster ok",
				() -> onNode(replica, (commands) -> commands.info("replication")).contains("role:master")
						&& onNode(replica, RedisCommands::clusterInfo).contains("cluster_state:ok"));
	}

	/**
	 * Return a new, started connection factory whose commands time out after
	 * {@code commandTimeout} (so that a frozen node does not stall its callers for long),
	 * and whose client follows failovers and slot moves: its topology is refreshed every
	 * {@code refreshPeriod} and on every adaptive trigger (MOVED, ASK, persistent
	 * reconnects), at most every {@code refreshPeriod}.
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout, Duration refreshPeriod) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		for (LocalRedisServer node : this.nodes.subList(0, 3)) {
			configuration.clusterNode(node.host(), node.port());
		}
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(refreshPeriod)
			.enableAllAdaptiveRefreshTriggers()
			.adaptiveRefreshTriggersTimeout(refreshPeriod)
			.build();
		ClusterClientOptions.Builder options = ClusterClientOptions.builder().topologyRefreshOptions(refresh);
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout);
		if (this.tls != null) {
			options.sslOptions(this.tls.sslOptions());
			client.useSsl();
		}
		client.clientOptions(options.build());
		return this.factories.start(new LettuceConnectionFactory(configuration, client.build()));
	}

	/**
	 * Return which node serves a slot now, as the first live node in {@code among} that
	 * answers says ({@code CLUSTER SLOTS}), or -1 when none is known.
	 */
	public int ownerOf(int slot, int... among) {
		for (int node : among) {
			if (!this.nodes.get(node).isAlive()) {
				continue;
			}
			List<Object> ranges = onNode(node, (commands) -> commands.clusterSlots());
			for (Object entry : ranges) {
				List<?> range = (List<?>) entry;
				if (((Number) range.get(0)).intValue() <= slot && ((Number) range.get(1)).intValue() >= slot) {
					int port = Integer.parseInt(((List<?>) range.get(2)).get(1).toString());
					for (int i = 0; i < this.nodes.size(); i++) {
						if (this.nodes.get(i).port() == port) {
							return i;
						}
					}
				}
			}
			return -1;
		}
		return -1;
	}

	/**
	 * Move one slot with its keys between any two masters (whatever nodes are masters
	 * now, after failovers), as {@link #moveSlot} does; the new owner is announced to
	 * every master in {@code masters} (live masters, neither frozen nor killed), and the
	 * move is done once all of them see it.
	 */
	public void moveSlotAmong(int slot, int from, int to, int... masters) {
		String fromId = onNode(from, RedisCommands::clusterMyId);
		String toId = onNode(to, RedisCommands::clusterMyId);
		LocalRedisServer target = this.nodes.get(to);
		onNode(to, (commands) -> commands.clusterSetSlotImporting(slot, fromId));
		onNode(from, (commands) -> {
			commands.clusterSetSlotMigrating(slot, toId);
			List<String> keys;
			while (!(keys = commands.clusterGetKeysInSlot(slot, 100)).isEmpty()) {
				commands.migrate(target.host(), target.port(), 0, 5000, io.lettuce.core.MigrateArgs.Builder.keys(keys));
			}
			return null;
		});
		onNode(to, (commands) -> commands.clusterSetSlotNode(slot, toId));
		onNode(from, (commands) -> commands.clusterSetSlotNode(slot, toId));
		for (int master : masters) {
			if (master != to && master != from) {
				onNode(master, (commands) -> commands.clusterSetSlotNode(slot, toId));
			}
		}
		await("every master to see slot " + slot + " on node " + to,
				() -> java.util.Arrays.stream(masters).allMatch((node) -> ownerOf(slot, node) == to));
	}

	/**
	 * Fail a master over to its replica in coordination with it ({@code CLUSTER FAILOVER}
	 * on the replica: it catches up with its master first, so no write is lost); the old
	 * master becomes the replica of the new one. Waits until the replica is master, the
	 * old master its replica in sync, and the cluster ok on both.
	 */
	public void failover(int replica, int master) {
		String replicaId = onNode(replica, RedisCommands::clusterMyId);
		String masterId = onNode(master, RedisCommands::clusterMyId);
		// A master ignores a failover request from a node it does not know as its
		// replica, and the other masters vote only for a replica of a known master:
		// after a failover or a re-join, the news spreads by gossip first.
		await("every master to know node " + replica + " as the replica of node " + master,
				() -> mastersNow().stream()
					.allMatch((node) -> java.util.Arrays.stream(onNode(node, RedisCommands::clusterNodes).split("\n"))
						.anyMatch((line) -> line.startsWith(replicaId + " ") && line.contains("slave " + masterId))));
		long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
		boolean promoted = false;
		while (!promoted) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Node " + replica + " did not take over from node " + master);
			}
			onNode(replica, (commands) -> commands.clusterFailover(false, false));
			// A manual failover that gets no answer is given up after 5 s; ask again.
			long attempt = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(7);
			while (!(promoted = onNode(replica, (commands) -> commands.info("replication")).contains("role:master"))
					&& System.nanoTime() < attempt) {
				sleep(50);
			}
		}
		await("node " + master + " to replicate node " + replica + " and the cluster ok",
				() -> onNode(master, (commands) -> commands.info("replication")).contains("master_link_status:up")
						&& onNode(replica, RedisCommands::clusterInfo).contains("cluster_state:ok")
						&& onNode(master, RedisCommands::clusterInfo).contains("cluster_state:ok"));
	}

	/**
	 * Return the live nodes that are masters now.
	 */
	private List<Integer> mastersNow() {
		List<Integer> masters = new ArrayList<>();
		for (int node = 0; node < this.nodes.size(); node++) {
			if (this.nodes.get(node).isAlive()
					&& onNode(node, (commands) -> commands.info("replication")).contains("role:master")) {
				masters.add(node);
			}
		}
		return masters;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/**
	 * Kill a node at once (SIGKILL), as a crash would.
	 */
	public void kill(int node) {
		this.nodes.get(node).kill();
	}

	/**
	 * Start a new, empty node in place of a killed one (on a port of its own) and make it
	 * the replica of {@code master}: the killed node's id is forgotten by every live
	 * node, the new one meets the cluster, replicates {@code master} and is waited for
	 * until in sync.
	 */
	public void rejoinAsReplica(int killed, int master) {
		LocalRedisServer dead = this.nodes.get(killed);
		String masterId = onNode(master, RedisCommands::clusterMyId);
		String deadId = null;
		for (String line : onNode(master, RedisCommands::clusterNodes).split("\n")) {
			if (line.contains(":" + dead.port() + "@")) {
				deadId = line.split(" ")[0];
			}
		}
		// On another port: a blank node answering on the dead one's address would be
		// taken for it by clients that knew it (Lettuce may route commands to it, or
		// read its one-node topology, until the next refresh).
		LocalRedisServer restarted = dead.startAnother();
		this.nodes.set(killed, restarted);
		dead.close();
		if (deadId != null) {
			String forget = deadId;
			for (int node = 0; node < this.nodes.size(); node++) {
				if (node != killed && this.nodes.get(node).isAlive()) {
					onNode(node, (commands) -> commands.clusterForget(forget));
				}
			}
		}
		LocalRedisServer seed = this.nodes.get(master);
		onNode(killed, (commands) -> commands.clusterMeet(seed.host(), seed.port()));
		await("the restarted node " + killed + " to see its master",
				() -> onNode(killed, RedisCommands::clusterNodes).contains(masterId));
		onNode(killed, (commands) -> commands.clusterReplicate(masterId));
		await("the restarted node " + killed + " to be in sync with node " + master,
				() -> onNode(killed, (commands) -> commands.info("replication")).contains("master_link_status:up")
						&& onNode(killed, RedisCommands::clusterInfo).contains("cluster_state:ok"));
	}

	/**
	 * Close the connections of every client in pub/sub mode on one node
	 * ({@code CLIENT KILL TYPE pubsub}), as a proxy or a server restart might.
	 * @return how many were closed
	 */
	public long killPubSubClients(int node) {
		return onNode(node, (commands) -> commands.clientKill(KillArgs.Builder.typePubsub()));
	}

	@Override
	public void close() {
		this.factories.close();
		this.nodes.forEach(LocalRedisServer::close);
	}

	@Override
	public String toString() {
		return "Redis Cluster of " + this.nodes;
	}

}
