package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.test.RedisCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Replica acknowledgement on a Redis Cluster: the WAIT that confirms an acquisition runs
 * on the master that ran the acquire script (the owner of the lock's slot), so it counts
 * that master's replicas. Each test has a cluster of its own, as some break it.
 */
@Tag("slow-fault")
class ClusterReplicaAcknowledgementTests {

	private final RedisCluster cluster = RedisCluster.start();

	private final LockTemplates templates = new LockTemplates(this.cluster);

	@AfterEach
	void close() throws Exception {
		try {
			this.templates.close();
		}
		finally {
			this.cluster.close();
		}
	}

	private DefaultRedisLockTemplate acknowledged(Duration timeout) {
		return this.templates.create(LockSettings.DEFAULTS.withReplicaAcknowledgement(1, timeout));
	}

	/** A lock name whose slot the given master serves. */
	private String nameOn(int master) {
		String name;
		do {
			name = this.cluster.lockName("acked-" + UUID.randomUUID());
		}
		while (RedisCluster.masterOf(name) != master);
		return name;
	}

	/**
	 * Let the client learn the cluster's topology while every node answers: Lettuce asks
	 * every node for it and waits for all answers, so a first connection made while a
	 * node is frozen waits the command timeout.
	 */
	private void warmUp(DefaultRedisLockTemplate template) {
		RedisLock lock = template.getLock(nameOn(2));
		// The first acknowledgements after the cluster started may take longer than the
		// test's timeout.
		await().pollInSameThread().atMost(Duration.ofSeconds(20)).until(() -> lock.tryLock(Duration.ZERO, null));
		lock.unlock();
	}

	private boolean existsOn(int node, String key) {
		return this.cluster.onNode(node, (commands) -> commands.exists(key)) == 1;
	}

	@Test
	void lockIsNotAcknowledgedWhenTheReplicaOfItsOwnMasterIsFrozen() {
		DefaultRedisLockTemplate template = acknowledged(Duration.ofMillis(300));
		String frozen = nameOn(0);
		String healthy = nameOn(1);
		warmUp(template);
		this.cluster.replicaOf(0).pause();
		try {
			RedisLock lock = template.getLock(frozen);
			assertThat(lock.tryLock(Duration.ofMillis(800), null)).as("replica of master 0 frozen").isFalse();
			assertThat(lock.isLocked()).as("undone").isFalse();
			RedisLock write = template.getReadWriteLock(frozen).writeLock();
			assertThat(write.tryLock(Duration.ZERO, null)).isFalse();
			assertThat(write.isLocked()).isFalse();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> template.execute(frozen, Duration.ZERO, null, () -> "ran"))
				.withMessageContaining("0 of 1 required replicas confirmed");
			RedisLock other = template.getLock(healthy);
			assertThat(other.tryLock(Duration.ZERO, null)).as("replica of master 1 healthy").isTrue();
			assertThat(existsOn(4, "redislock:{" + healthy + "}")).as("on master 1's replica").isTrue();
			other.unlock();
		}
		finally {
			this.cluster.replicaOf(0).resume();
		}
		RedisLock lock = template.getLock(frozen);
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> lock.tryLock(Duration.ZERO, null));
		assertThat(existsOn(3, "redislock:{" + frozen + "}")).as("on master 0's replica").isTrue();
		lock.unlock();
	}

	@Test
	void waitRunsOnTheMasterThatOwnsTheLocksSlot() {
		DefaultRedisLockTemplate template = acknowledged(Duration.ofSeconds(1));
		String[] names = { nameOn(0), nameOn(1), nameOn(2) };
		// Connections and topology first, so that the counts below are the locks' own.
		template.getLock(names[0]).isLocked();
		this.cluster.resetStatistics();
		int[] rounds = { 1, 2, 3 };
		for (int master = 0; master < 3; master++) {
			for (int i = 0; i < rounds[master]; i++) {
				RedisLock lock = (i % 2 == 0) ? template.getLock(names[master])
						: template.getReadWriteLock(names[master]).writeLock();
				assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
				lock.unlock();
			}
		}
		for (int master = 0; master < 3; master++) {
			assertThat(this.cluster.calls(master, "wait")).as("WAIT calls on master " + master)
				.isEqualTo(rounds[master]);
			assertThat(this.cluster.calls(master, "evalsha") + this.cluster.calls(master, "eval"))
				.as("scripts on master " + master)
				.isGreaterThanOrEqualTo(2L * rounds[master]);
		}
		for (int replica = 3; replica < 6; replica++) {
			assertThat(this.cluster.calls(replica, "wait")).isZero();
		}
	}

	@Test
	void acknowledgedLockSurvivesAFailoverOfItsMaster() throws Exception {
		String name = nameOn(0);
		RedisLock lock = acknowledged(Duration.ofSeconds(1)).getLock(name);
		// Held by a thread of its own, which ends with the test.
		ExecutorService holder = Executors.newSingleThreadExecutor();
		try {
			assertThat(holder.submit(() -> lock.tryLock(Duration.ZERO, Duration.ofMinutes(5))).get()).isTrue();
		}
		finally {
			holder.shutdown();
		}
		this.cluster.nodes().get(0).kill();
		this.cluster.takeOver(3);
		assertThat(existsOn(3, "redislock:{" + name + "}")).as("on the promoted replica").isTrue();
		RedisLock second = this.templates.create().getLock(name);
		// A new client may first route the slot to the killed master (a seed node that
		// has
		// not yet learnt of the take-over): a failed call, never a grant. Asked until it
		// answers, the answer must be no.
		Boolean granted = await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> second.tryLock(Duration.ZERO, null), (answer) -> answer != null);
		assertThat(granted).as("no second holder after the failover").isFalse();
	}

	@Test
	void slotMovedBeforeTheScriptIsFollowedAndAcknowledgedByTheNewOwner() {
		DefaultRedisLockTemplate template = acknowledged(Duration.ofMillis(300));
		String name = nameOn(0);
		// The client learns the topology, then the (empty) slot moves to master 1.
		warmUp(template);
		this.cluster.moveSlot(ClusterSlotHashUtil.calculateSlot(name), 0, 1);
		this.cluster.replicaOf(1).pause();
		RedisLock lock = template.getLock(name);
		try {
			assertThat(lock.tryLock(Duration.ofMillis(800), null)).as("the new owner's replica is frozen").isFalse();
			assertThat(lock.isLocked()).isFalse();
		}
		finally {
			this.cluster.replicaOf(1).resume();
		}
		this.cluster.resetStatistics();
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> lock.tryLock(Duration.ZERO, null));
		assertThat(this.cluster.calls(1, "wait")).as("WAIT on the new owner").isPositive();
		assertThat(this.cluster.calls(0, "wait")).isZero();
		// On the new owner's replica (which may still answer MOVED for a moment, until it
		// has learnt that its master owns the slot now).
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> {
			try {
				return existsOn(4, "redislock:{" + name + "}");
			}
			catch (IllegalStateException ex) {
				return false;
			}
		});
		lock.unlock();
	}

	@Test
	void slotMovedWhileWaitingForTheReplicaMakesTheAcquisitionNotAcknowledged() throws Exception {
		DefaultRedisLockTemplate template = acknowledged(Duration.ofSeconds(20));
		String name = nameOn(0);
		String key = "redislock:{" + name + "}";
		// Valkey (8 and later) replicates CLUSTER SETSLOT and waits for the replicas
		// before
		// it moves a slot: with the replica paused it refuses the move (NOREPLICAS), so
		// this
		// race cannot happen there.
		assumeFalse(this.cluster.onNode(0, (commands) -> commands.info("server")).contains("server_name:valkey"),
				"Valkey does not move a slot while the master's replica does not answer");
		RedisLock lock = template.getLock(name);
		warmUp(template);
		ExecutorService thread = Executors.newSingleThreadExecutor();
		this.cluster.replicaOf(0).pause();
		try {
			Future<Boolean> acquiring = thread.submit(() -> lock.tryLock(Duration.ZERO, null));
			await().atMost(Duration.ofSeconds(10)).until(() -> existsOn(0, key));
			// While the acquisition waits for master 0's replica, its keys move to
			// master 1; then the replica confirms the write on master 0.
			this.cluster.moveSlot(ClusterSlotHashUtil.calculateSlot(name), 0, 1);
			assertThat(existsOn(1, key)).isTrue();
			this.cluster.replicaOf(0).resume();
			assertThat(acquiring.get(30, TimeUnit.SECONDS)).as("the lock now lives on a master that did not confirm it")
				.isFalse();
			assertThat(lock.isLocked()).as("undone on the new owner").isFalse();
		}
		finally {
			this.cluster.replicaOf(0).resume();
			thread.shutdownNow();
		}
	}

}
