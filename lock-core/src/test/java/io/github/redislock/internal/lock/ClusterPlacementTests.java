package io.github.redislock.internal.lock;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.redislock.core.RedisLock;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a real Redis Cluster, every key of a lock lives on the one master that serves the
 * lock name's hash tag, and the suites' lock names spread over all three masters.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
class ClusterPlacementTests {

	private final RedisCluster cluster;

	private final LockTemplates templates;

	ClusterPlacementTests(RedisTargets targets) {
		this.cluster = (RedisCluster) targets.get(RedisMode.CLUSTER);
		this.templates = new LockTemplates(this.cluster);
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	@Test
	void clusterHasThreeMastersWithOneReplicaEachAndIsOk() {
		List<LocalRedisServer> nodes = this.cluster.nodes();
		assertThat(nodes).hasSize(6);
		for (int i = 0; i < 6; i++) {
			StringRedisTemplate node = nodes.get(i).template();
			String info = node
				.execute((org.springframework.data.redis.core.RedisCallback<String>) (connection) -> String
					.valueOf(connection.serverCommands().info("replication")));
			assertThat(info).contains((i < 3) ? "role=master" : "role=slave");
		}
	}

	@Test
	void lockAndReadWriteKeysLiveOnTheMasterServingTheirHashTag() {
		DefaultRedisLockTemplate template = this.templates.create();
		Set<Integer> mastersUsed = new HashSet<>();
		for (int i = 0; i < 3; i++) {
			String name = this.cluster.lockName("placement-" + UUID.randomUUID());
			int master = RedisCluster.masterOf(name);
			mastersUsed.add(master);
			RedisLock lock = template.getLock(name);
			RedisLock write = template.getReadWriteLock(name).writeLock();
			lock.lock();
			write.lock();
			for (int node = 0; node < 3; node++) {
				StringRedisTemplate direct = this.cluster.nodes().get(node).template();
				Set<String> keys = direct.keys("redislock:{" + name + "}*");
				if (node == master) {
					assertThat(keys).contains("redislock:{" + name + "}", "redislock:{" + name + "}:fence",
							"redislock:{" + name + "}:write");
				}
				else {
					assertThat(keys).isEmpty();
				}
			}
			write.unlock();
			lock.unlock();
		}
		assertThat(mastersUsed).containsExactlyInAnyOrder(0, 1, 2);
	}

}
