package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisExtension;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hostile review of 114ab2d on a Cluster: the workers' native cluster pub/sub connection
 * hears classic PUBLISH from any node, and moves with Lettuce when its node dies.
 */
@Tag("slow-fault")
@ExtendWith(RedisExtension.class)
class SubscriptionFixClusterReviewTests {

	static final Map<String, Long> STARTED = new ConcurrentHashMap<>();

	private final RedisCluster cluster;

	private final String prefix = "fix-cluster-" + UUID.randomUUID();

	SubscriptionFixClusterReviewTests() {
		this.cluster = RedisCluster.start();
	}

	@AfterEach
	void stopCluster() {
		this.cluster.close();
	}

	private ApplicationContextRunner runner() {
		String nodes = this.cluster.nodes()
			.stream()
			.filter((node) -> node.isAlive())
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("review.prefix=" + this.prefix, "redislock.queue.poll-interval=60s",
					"redislock.queue.visibility-timeout=5s", "spring.data.redis.cluster.nodes=" + nodes,
					"spring.data.redis.timeout=3s",
					// The command connections follow a failover as an application on a
					// Cluster would have them do.
					"spring.data.redis.lettuce.cluster.refresh.adaptive=true",
					"spring.data.redis.lettuce.cluster.refresh.period=1s")
			.withBean(ReviewQueue.class);
	}

	/** Per live node, the number of its clients subscribed to our channels. */
	private List<Integer> subscribersPerNode() {
		List<Integer> counts = new ArrayList<>();
		for (int i = 0; i < this.cluster.nodes().size(); i++) {
			if (!this.cluster.nodes().get(i).isAlive()) {
				counts.add(-1);
				continue;
			}
			counts.add((int) this.cluster.onNode(i, RedisCommands::clientList)
				.lines()
				.filter((line) -> !line.contains(" sub=0 ") && line.contains(" sub="))
				.count());
		}
		return counts;
	}

	/**
	 * The node the workers' pub/sub connection is on is killed (SIGKILL): Lettuce
	 * reconnects it to another node and subscribes again; a wake-up sent afterwards is
	 * heard at once (the poll interval is 60 s, the probe 30 s).
	 */
	@Test
	void killingTheNodeOfThePubSubConnectionKeepsWakeUpsHeard() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> subscribersPerNode().stream().mapToInt(Integer::intValue).filter((c) -> c > 0).sum() == 1);
			List<Integer> before = subscribersPerNode();
			int node = before.indexOf(1);
			this.cluster.kill(node);
			// Failover (node timeout 5 s) when it was a master.
			int other = (node == 0) ? 1 : 0;
			await().atMost(Duration.ofSeconds(40))
				.until(() -> this.cluster.onNode(other, RedisCommands::clusterInfo).contains("cluster_state:ok"));
			Thread.sleep(5000);
			ReviewQueue queue = context.getBean(ReviewQueue.class);
			String id = "cluster-" + UUID.randomUUID();
			long[] sent = new long[1];
			// Until the enqueue reaches the slot's new master (the command connections'
			// topology is refreshed every second).
			await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(DataAccessException.class).until(() -> {
				sent[0] = System.nanoTime();
				queue.q(id);
				return true;
			});
			await().atMost(Duration.ofSeconds(70)).until(() -> STARTED.containsKey(id));
			Duration late = Duration.ofNanos(STARTED.get(id) - sent[0]);
			assertThat(late)
				.as("start after the pub/sub node was killed (poll 60 s); subscribers %s", subscribersPerNode())
				.isLessThan(Duration.ofSeconds(3));
		});
	}

	static class ReviewQueue {

		@QueuedTask(queue = "${review.prefix}-0")
		public void q(String id) {
			STARTED.putIfAbsent(id, System.nanoTime());
		}

	}

}
