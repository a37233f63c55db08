package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.ReleaseMessages;
import io.github.redislock.test.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter on a Redis Cluster that speaks TLS only, to clients and between its nodes
 * ({@code --port 0 --tls-port}, {@code --tls-cluster yes}, {@code --tls-replication yes};
 * certificates from a throw-away CA made at test time): an application connects through
 * {@code spring.data.redis.cluster.nodes} and {@code spring.data.redis.ssl.bundle},
 * locks, is woken by the sharded release message, and runs a queued task.
 */
class ClusterTlsApplicationTests {

	/**
	 * Generous: a hand-off takes milliseconds; the fallback retry would take the lease.
	 */
	private static final Duration HANDOFF_BOUND = Duration.ofSeconds(2);

	static final Map<String, CountDownLatch> RAN = new ConcurrentHashMap<>();

	private static TestCertificates certificates;

	private static RedisCluster cluster;

	private final ExecutorService waiter = Executors.newSingleThreadExecutor();

	@BeforeAll
	static void startCluster() {
		certificates = TestCertificates.create();
		cluster = RedisCluster.startTls(certificates);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
		certificates.close();
	}

	@AfterEach
	void stopWaiter() {
		this.waiter.shutdownNow();
	}

	private ApplicationContextRunner runner() {
		String nodes = cluster.nodes()
			.subList(0, 3)
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes, "spring.data.redis.ssl.enabled=true",
					"spring.data.redis.ssl.bundle=" + certificates.bundleName())
			.withPropertyValues(certificates.springBundleProperties());
	}

	@Test
	void nodesSpeakTlsOnly() {
		for (LocalRedisServer node : cluster.nodes()) {
			assertThat(node.uri()).startsWith("rediss://");
		}
		Map<String, String> config = cluster.onNode(0, (commands) -> commands.configGet("tls-cluster"));
		assertThat(config).containsEntry("tls-cluster", "yes");
		String replication = cluster.onNode(3, (commands) -> commands.info("replication"));
		assertThat(replication).contains("master_link_status:up");
	}

	/**
	 * With a 30 second lease the fallback retry would take up to 30 seconds: a hand-off
	 * within {@link #HANDOFF_BOUND}, with the sharded release message seen on the lock's
	 * channel, proves the waiter was woken by it.
	 */
	@Test
	void waiterIsWokenByTheShardedReleaseMessageOverTls() throws Exception {
		String name = cluster.lockName("tls-cluster-wait-" + UUID.randomUUID());
		String key = "redislock:{" + name + "}";
		try (ReleaseMessages released = ReleaseMessages.listen(cluster.connectionFactory(), key + ":released")) {
			runner().withPropertyValues("redislock.lease-time=30s").run((context) -> {
				assertThat(context).hasNotFailed();
				RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
				RedisLock lock = locks.getLock(name);
				lock.lock();
				long[] acquiredAt = new long[1];
				Future<Boolean> waiting = this.waiter.submit(() -> {
					RedisLock sameLock = locks.getLock(name);
					boolean acquired = sameLock.tryLock(Duration.ofSeconds(25), null);
					acquiredAt[0] = System.nanoTime();
					if (acquired) {
						sameLock.unlock();
					}
					return acquired;
				});
				await().atMost(Duration.ofSeconds(10)).until(() -> LockRecords.hasWaiters(cluster.template(), key));
				long releasedAt = System.nanoTime();
				lock.unlock();
				assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
				assertThat(Duration.ofNanos(acquiredAt[0] - releasedAt)).isLessThan(HANDOFF_BOUND);
				await().atMost(Duration.ofSeconds(5)).until(() -> !released.messages().isEmpty());
			});
		}
	}

	/**
	 * Workers look for due tasks only once a minute here: a task that runs within seconds
	 * was announced to them on the queue's channel, over TLS.
	 */
	@Test
	void queuedTaskRunsOverTls() {
		String id = UUID.randomUUID().toString();
		CountDownLatch ran = new CountDownLatch(1);
		RAN.put(id, ran);
		runner().withPropertyValues("redislock.queue.poll-interval=1m").withBean(Tasks.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(Tasks.class).record(id);
			assertThat(ran.await(20, TimeUnit.SECONDS)).as("ran").isTrue();
		});
		RAN.remove(id);
	}

	/**
	 * The README's user with its Cluster additions, set on every node (a Cluster does not
	 * share ACL users between nodes): the lock, the wait and the queued task run, and no
	 * node refused anything ({@code ACL LOG} empty but for Lettuce's
	 * {@code CLIENT SETINFO}, refused and ignored).
	 */
	@Test
	void readmeUserWithItsClusterAdditionsLocksWaitsAndRunsTasks() throws Exception {
		List<String> rule = AclUserApplicationTests.readmeRule();
		List<String> additions = AclUserApplicationTests.readmeClusterAdditions();
		String password = rule.stream().filter((word) -> word.startsWith(">")).findFirst().orElseThrow().substring(1);
		for (int node = 0; node < 6; node++) {
			cluster.onNode(node, (commands) -> {
				AclUserApplicationTests.acl(commands, rule.subList(1, rule.size()).toArray(String[]::new));
				AclUserApplicationTests.acl(commands, additions.subList(1, additions.size()).toArray(String[]::new));
				commands.aclLogReset();
				return null;
			});
		}
		String id = UUID.randomUUID().toString();
		CountDownLatch ran = new CountDownLatch(1);
		RAN.put(id, ran);
		runner()
			.withPropertyValues("spring.data.redis.username=" + rule.get(2), "spring.data.redis.password=" + password)
			.withBean(Tasks.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
				for (int master = 0; master < 3; master++) {
					handOff(locks, cluster.lockName("tls-cluster-acl-" + id));
				}
				context.getBean(Tasks.class).record(id);
				assertThat(ran.await(20, TimeUnit.SECONDS)).as("ran").isTrue();
			});
		RAN.remove(id);
		for (int node = 0; node < 6; node++) {
			List<Map<String, Object>> log = cluster.onNode(node, (commands) -> commands.aclLog());
			assertThat(log).as("refused on node " + node)
				.filteredOn((entry) -> !"client|setinfo".equals(entry.get("object")))
				.isEmpty();
		}
	}

	private void handOff(RedisLockTemplate locks, String name) throws Exception {
		String key = "redislock:{" + name + "}";
		RedisLock lock = locks.getLock(name);
		lock.lock();
		long[] acquiredAt = new long[1];
		Future<Boolean> waiting = this.waiter.submit(() -> {
			RedisLock sameLock = locks.getLock(name);
			boolean acquired = sameLock.tryLock(Duration.ofSeconds(25), null);
			acquiredAt[0] = System.nanoTime();
			if (acquired) {
				sameLock.unlock();
			}
			return acquired;
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> LockRecords.hasWaiters(cluster.template(), key));
		long releasedAt = System.nanoTime();
		lock.unlock();
		assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(acquiredAt[0] - releasedAt)).as("woken by the release message")
			.isLessThan(HANDOFF_BOUND);
	}

	static class Tasks {

		@QueuedTask(queue = "tls-cluster-tasks", id = "#id")
		public void record(String id) {
			RAN.get(id).countDown();
		}

	}

}
