package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
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

	private RedisCluster(List<LocalRedisServer> nodes) {
		this.nodes = nodes;
	}

	public static RedisCluster start() {
		List<LocalRedisServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < 6; i++) {
				nodes.add(LocalRedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
						"--cluster-node-timeout", "5000"));
			}
			RedisCluster cluster = new RedisCluster(nodes);
			cluster.join();
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(LocalRedisServer::close);
			throw ex;
		}
	}

	private void join() {
		RedisClient client = RedisClient.create();
		try {
			List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
			for (LocalRedisServer node : this.nodes) {
				connections.add(client.connect(RedisURI.create(node.host(), node.port())));
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
