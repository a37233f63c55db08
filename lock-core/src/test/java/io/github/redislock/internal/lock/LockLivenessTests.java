package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Liveness of the locks beyond the wake-up: {@link LockLostEvent} listeners run off the
 * threads that renew leases, and a writer that gives up leaves nothing that delays
 * readers, also when its first attempt was its last.
 */
@ExtendWith(RedisExtension.class)
class LockLivenessTests {

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final ExecutorService holders = Executors.newFixedThreadPool(2);

	private final RedisServer redis;

	LockLivenessTests(RedisServer redis) {
		this.redis = redis;
		this.templates = new LockTemplates(redis);
		this.raw = redis.template();
	}

	@AfterEach
	void close() throws Exception {
		this.holders.shutdownNow();
		this.templates.close();
	}

	@Test
	void slowListenerDoesNotDelayTheRenewalOfOtherHeldLocks() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofMillis(900));
		List<String> lost = new CopyOnWriteArrayList<>();
		List<String> listenerThreads = new CopyOnWriteArrayList<>();
		template.setLockLostListener((event) -> {
			lost.add(event.getLockName());
			listenerThreads.add(Thread.currentThread().getName());
			try {
				Thread.sleep(4000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		String victim = "victim-" + UUID.randomUUID();
		String survivor = "survivor-" + UUID.randomUUID();
		RedisLock victimLock = template.getLock(victim);
		RedisLock survivorLock = template.getLock(survivor);
		assertThat(this.holders.submit(() -> victimLock.tryLock(Duration.ZERO, null)).get()).isTrue();
		assertThat(this.holders.submit(() -> survivorLock.tryLock(Duration.ZERO, null)).get()).isTrue();
		// The victim's hold is deleted behind its back: the next renewal finds it lost
		// and the listener takes four seconds, more than four of the survivor's leases.
		this.raw.delete("redislock:{" + victim + "}");
		await().atMost(Duration.ofSeconds(10)).until(() -> lost.contains(victim));
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2500);
		await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() > until);
		assertThat(lost).as("locks reported lost").containsExactly(victim);
		assertThat(LockRecords.isHeld(this.raw, "redislock:{" + survivor + "}")).isTrue();
		assertThat(listenerThreads).noneMatch((name) -> name.startsWith("redislock-watchdog"));
	}

	@Test
	void writerWhoseFirstAttemptIsAlsoItsLastLeavesNothingThatDelaysReaders() throws Exception {
		String name = "first-last-" + UUID.randomUUID();
		assertThat(this.holders
			.submit(() -> this.templates.create()
				.getReadWriteLock(name)
				.readLock()
				.tryLock(Duration.ZERO, Duration.ofSeconds(60)))
			.get()).isTrue();
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			DefaultRedisLockTemplate slow = new DefaultRedisLockTemplate(proxy.connectionFactory(),
					LockSettings.DEFAULTS);
			try {
				proxy.delayReplies(Duration.ofMillis(200));
				// The wait ends while the first attempt's answer is on its way.
				assertThat(slow.getReadWriteLock(name).writeLock().tryLock(Duration.ofMillis(20), null)).isFalse();
			}
			finally {
				slow.destroy();
			}
		}
		assertThat(this.raw.hasKey("redislock:{" + name + "}:queued")).as("the writer's marker").isFalse();
		RedisLock reader = this.templates.create().getReadWriteLock(name).readLock();
		assertThat(reader.tryLock(Duration.ZERO, Duration.ofSeconds(60))).isTrue();
		reader.unlock();
	}

	@Test
	void undoOfAnEarlierAttemptOfTheSameThreadCannotRemoveALaterHold() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		String name = "undo-" + UUID.randomUUID();
		String key = "redislock:{" + name + "}";
		long threadId = DefaultRedisLockTemplate.currentThreadId();
		// The identity an earlier attempt of this thread sent its acquire with: its undo
		// (owner-checked release with no token) may reach Redis late, e.g. on another
		// connection of a pool.
		String earlierAttempt = template.ownerId(threadId);
		RedisLock lock = template.getLock(name);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		long undone = template.commands().release(key, earlierAttempt, 0, "", 0);
		assertThat(undone).as("the later hold is another owner's").isEqualTo(-1);
		assertThat(LockRecords.isHeld(this.raw, key)).isTrue();
		lock.unlock();
	}

}
