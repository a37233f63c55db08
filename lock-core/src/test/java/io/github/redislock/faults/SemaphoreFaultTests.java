package io.github.redislock.faults;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Semaphore permits whose holder is killed or frozen, in a JVM of its own: the permit
 * comes back when its lease ends, and a frozen holder learns it lost the permit.
 */
@ExtendWith(RedisExtension.class)
@Tag("slow-fault")
class SemaphoreFaultTests {

	private final RedisServer redis;

	private final String name = "semaphore-fault-" + UUID.randomUUID();

	private final DefaultRedisLockTemplate template;

	SemaphoreFaultTests(RedisServer redis) {
		this.redis = redis;
		this.template = new DefaultRedisLockTemplate(redis.connectionFactory());
	}

	@AfterEach
	void close() throws Exception {
		this.template.destroy();
	}

	private ChildJvm holder(long leaseMillis) {
		ChildJvm child = ChildJvm.start(SemaphoreHolderProcess.class, Integer.toString(this.redis.port()), this.name,
				"1", Long.toString(leaseMillis));
		child.await("READY", Duration.ofSeconds(60));
		child.send("ACQUIRE");
		child.await("HELD", Duration.ofSeconds(30));
		return child;
	}

	@Test
	void aKilledHoldersPermitIsBackWithinItsLease() {
		long lease = 1500;
		try (ChildJvm child = holder(lease)) {
			RedisSemaphore semaphore = this.template.getSemaphore(this.name, 1);
			assertThat(semaphore.tryAcquire(Duration.ofMillis(2 * lease), null)).as("renewed while the holder lives")
				.isEmpty();
			child.kill();
			long killed = System.nanoTime();
			Optional<SemaphorePermit> permit = semaphore.tryAcquire(Duration.ofSeconds(30), null);
			long freedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
			assertThat(permit).isPresent();
			assertThat(freedAfter).as("back within lease + margin").isLessThan(lease + 3000);
			permit.get().close();
		}
	}

	@Test
	void aWaiterRetriesThroughACutConnectionWithinItsWaitTime() throws Exception {
		RedisSemaphore direct = this.template.getSemaphore(this.name, 1);
		SemaphorePermit held = direct.tryAcquire(Duration.ZERO, Duration.ofMillis(1500)).orElseThrow();
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			DefaultRedisLockTemplate viaProxy = new DefaultRedisLockTemplate(proxy.connectionFactory());
			try {
				java.util.concurrent.CompletableFuture<Optional<SemaphorePermit>> waiting = java.util.concurrent.CompletableFuture
					.supplyAsync(() -> viaProxy.getSemaphore(this.name, 1).tryAcquire(Duration.ofSeconds(20), null));
				Thread.sleep(300);
				proxy.cutConnections();
				Optional<SemaphorePermit> permit = waiting.get(30, TimeUnit.SECONDS);
				assertThat(permit).as("acquired once the stale permit's lease ran out, through the reconnect")
					.isPresent();
				permit.get().close();
			}
			finally {
				viaProxy.destroy();
			}
		}
		assertThat(held.isHeld()).isFalse();
	}

	@Test
	void aFrozenHolderLosesItsPermitToAnotherCallerAndLearnsIt() {
		long lease = 1500;
		try (ChildJvm child = holder(lease)) {
			child.pause();
			RedisSemaphore semaphore = this.template.getSemaphore(this.name, 1);
			Optional<SemaphorePermit> permit = semaphore.tryAcquire(Duration.ofSeconds(30), null);
			assertThat(permit).as("taken once the frozen holder's lease ran out").isPresent();
			child.resume();
			assertThat(child.await("LOST", Duration.ofSeconds(10))).contains(this.name);
			child.send("HELD?");
			assertThat(child.await("STILL", Duration.ofSeconds(10))).containsExactly("false");
			assertThat(permit.get().isHeld()).as("the new holder keeps its permit").isTrue();
			permit.get().close();
		}
	}

}
