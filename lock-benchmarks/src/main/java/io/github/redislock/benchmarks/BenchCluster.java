package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.RedisCluster;
import io.lettuce.core.MigrateArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis Cluster for the benchmark: the test fixture's six {@code redis-server}
 * processes ({@link RedisCluster}: three shards, slots split in thirds, each a master and
 * one replica). Administered over one plain connection per node kept open for the whole
 * run, so that a transition (a slot move, a replica's takeover) takes no more than its
 * own commands. Keeps track of which node is master of which shard.
 */
final class BenchCluster implements AutoCloseable {

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

	private static final int SLOTS = 16384;

	private final List<LocalRedisServer> nodes;

	private final RedisClient client = RedisClient.create();

	private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

	/** Node index of each shard's master. */
	private final int[] masters = { 0, 1, 2 };

	/** Node index of each shard's replica. */
	private final int[] replicas = { 3, 4, 5 };

	private final RedisCluster cluster;

	private BenchCluster(RedisCluster cluster) {
		this.cluster = cluster;
		this.nodes = cluster.nodes();
		for (LocalRedisServer node : this.nodes) {
			this.connections.add(this.client.connect(RedisURI.create("127.0.0.1", node.port())));
		}
	}

	/**
	 * Start the test fixture's six-node cluster (three masters, each with its replica in
	 * sync) and keep a connection open to every node.
	 */
	static BenchCluster start() {
		RedisCluster cluster = RedisCluster.start();
		try {
			return new BenchCluster(cluster);
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	private static int firstSlot(int shard) {
		return (shard == 3) ? SLOTS : shard * (SLOTS / 3);
	}

	/** Return the shard that serves a slot when the cluster starts. */
	static int initialShardOf(int slot) {
		int shard = 0;
		while (slot >= firstSlot(shard + 1)) {
			shard++;
		}
		return shard;
	}

	/** Commands on one node (0–5), on the connection kept open for it. */
	RedisCommands<String, String> node(int node) {
		return this.connections.get(node).sync();
	}

	int port(int node) {
		return this.nodes.get(node).port();
	}

	int masterOf(int shard) {
		return this.masters[shard];
	}

	int replicaOf(int shard) {
		return this.replicas[shard];
	}

	/** A connection factory on the cluster, as an application instance has. */
	LettuceConnectionFactory connectionFactory() {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		for (LocalRedisServer node : this.nodes) {
			configuration.clusterNode("127.0.0.1", node.port());
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Move one slot, with its keys, from one shard's master to another's, as
	 * {@code redis-cli --cluster reshard} does: IMPORTING on the target, MIGRATING on the
	 * source, MIGRATE of its keys, then the new owner set on every master (target,
	 * source, the third). Returns once the last of them answered.
	 */
	void moveSlot(int slot, int fromShard, int toShard) {
		int from = masterOf(fromShard);
		int to = masterOf(toShard);
		String fromId = node(from).clusterMyId();
		String toId = node(to).clusterMyId();
		node(to).clusterSetSlotImporting(slot, fromId);
		node(from).clusterSetSlotMigrating(slot, toId);
		List<String> keys;
		while (!(keys = node(from).clusterGetKeysInSlot(slot, 100)).isEmpty()) {
			node(from).migrate("127.0.0.1", port(to), 0, 5000, MigrateArgs.Builder.keys(keys));
		}
		node(to).clusterSetSlotNode(slot, toId);
		node(from).clusterSetSlotNode(slot, toId);
		node(masterOf(3 - fromShard - toShard)).clusterSetSlotNode(slot, toId);
	}

	/**
	 * Promote a shard's replica at once ({@code CLUSTER FAILOVER TAKEOVER}, no election,
	 * as an operator does when the master is gone) and return once the new master says it
	 * is master with {@code cluster_state:ok} and the former master says it is its
	 * replica (so that no command reaches a node that still takes itself for the master).
	 */
	void takeOver(int shard) {
		int replica = replicaOf(shard);
		int master = masterOf(shard);
		node(replica).clusterFailover(false, true);
		await("node " + replica + " to be master, the cluster ok and node " + master + " its replica",
				() -> node(replica).info("replication").contains("role:master")
						&& node(replica).clusterInfo().contains("cluster_state:ok")
						&& node(master).info("replication").contains("role:slave"));
		this.masters[shard] = replica;
		this.replicas[shard] = master;
	}

	/**
	 * Wait until a shard's replica is linked to its master and has every write the master
	 * had when this was called.
	 */
	void awaitReplicaInSync(int shard) {
		awaitReplicaLinked(shard);
		long offset = offset(node(masterOf(shard)).info("replication"), "master_repl_offset:");
		await("the replica of shard " + shard + " to catch up",
				() -> offset(node(replicaOf(shard)).info("replication"), "slave_repl_offset:") >= offset);
	}

	private void awaitReplicaLinked(int shard) {
		await("the replica of shard " + shard + " to be linked",
				() -> node(replicaOf(shard)).info("replication").contains("master_link_status:up"));
	}

	private static long offset(String info, String field) {
		return info.lines()
			.filter((line) -> line.startsWith(field))
			.findFirst()
			.map((line) -> Long.parseLong(line.substring(field.length()).trim()))
			.orElse(-1L);
	}

	private static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(
						"Redis Cluster: gave up after " + READY_TIMEOUT + " waiting for " + what);
			}
			Measure.sleep(5);
		}
	}

	@Override
	public void close() {
		this.connections.forEach(StatefulRedisConnection::close);
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		this.cluster.close();
	}

}
