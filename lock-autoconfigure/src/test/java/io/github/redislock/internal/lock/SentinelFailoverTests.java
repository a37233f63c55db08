package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisSentinelGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Through Sentinel, the locks keep working across a failover: master killed, replica
 * promoted. Slow (the failover itself takes seconds), so in the {@code slow-fault} group.
 */
@Tag("slow-fault")
class SentinelFailoverTests {

	private final RedisSentinelGroup group = RedisSentinelGroup.start();

	private final ExecutorService holderThread = Executors.newSingleThreadExecutor();

	private final ExecutorService waiterThread = Executors.newSingleThreadExecutor();

	@AfterEach
	void close() {
		this.holderThread.shutdownNow();
		this.waiterThread.shutdownNow();
		this.group.close();
	}

	@Test
	void starterWorksThroughSpringBootsSentinelProperties() {
		LockApplicationContextRunner.unconfigured()
			.withPropertyValues("spring.data.redis.sentinel.master=" + RedisSentinelGroup.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + this.group.sentinelNodes(), "redislock.min-replicas-acked=1")
			.run((context) -> {
				RedisLock lock = context.getBean(RedisLockTemplate.class).getLock("through-sentinel");
				assertThat(lock.tryLock(Duration.ofSeconds(5), null)).isTrue();
				assertThat(LockRecords.isHeld(this.group.replica().template(), "redislock:{through-sentinel}"))
					.as("acknowledged by the replica")
					.isTrue();
				lock.unlock();
			});
	}

	@Test
	void locksKeepWorkingAfterAFailoverAndAnAcknowledgedLockSurvivesIt() throws Exception {
		// The holder has its lock acknowledged by the replica. After the failover the new
		// master has no replica left, so acknowledged acquisitions are impossible until
		// one
		// rejoins: the other instance, without acknowledgement, shows that locks are
		// served.
		LockSettings settings = LockSettings.DEFAULTS.withLeaseTime(Duration.ofSeconds(6));
		DefaultRedisLockTemplate holderInstance = new DefaultRedisLockTemplate(this.group.connectionFactory(),
				settings.withReplicaAcknowledgement(1, Duration.ofSeconds(1)));
		DefaultRedisLockTemplate otherInstance = new DefaultRedisLockTemplate(this.group.connectionFactory(), settings);
		try {
			String held = "held-" + UUID.randomUUID();
			RedisLock holder = holderInstance.getLock(held);
			assertThat(this.holderThread.submit(() -> holder.tryLock(Duration.ofSeconds(5), null)).get()).isTrue();
			RedisLock waiter = otherInstance.getLock(held);
			Future<Boolean> waiting = this.waiterThread.submit(() -> waiter.tryLock(Duration.ofSeconds(90), null));

			int oldMaster = this.group.master().port();
			this.group.master().kill();
			this.group.await("the replica to be promoted",
					() -> this.group.currentMasterPort() == this.group.replica().port());
			assertThat(this.group.currentMasterPort()).isNotEqualTo(oldMaster);

			RedisLock fresh = otherInstance.getLock("fresh-" + UUID.randomUUID());
			long start = System.nanoTime();
			boolean freshAcquired = false;
			while (!freshAcquired && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(60)) {
				try {
					freshAcquired = fresh.tryLock(Duration.ofSeconds(5), null);
				}
				catch (RuntimeException ex) {
					// Connections are still moving to the new master.
					Thread.sleep(200);
				}
			}
			assertThat(freshAcquired).as("new locks are served after the failover").isTrue();
			fresh.unlock();

			assertThat(waiter.isLocked()).as("the acknowledged lock survived the failover").isTrue();
			if (waiting.isDone()) {
				waiting.get();
			}
			assertThat(waiting.isDone()).as("the waiter still waits").isFalse();
			this.holderThread.submit(holder::unlock).get(30, TimeUnit.SECONDS);
			assertThat(waiting.get(90, TimeUnit.SECONDS)).as("the waiter got the lock after the release").isTrue();
			this.waiterThread.submit(waiter::unlock).get(30, TimeUnit.SECONDS);
		}
		finally {
			holderInstance.destroy();
			otherInstance.destroy();
		}
	}

}
