package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.redislock.core.LockLostEvent;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code holdAtLeast} keeps a released lock taken until that long after its acquisition,
 * timed by Redis; {@code maxHold} stops the watchdog; shutdown releases what an instance
 * still holds. Two templates stand for two application instances.
 */
@ExtendWith(RedisExtension.class)
class HoldBoundsTests {

	private final RedisServer redis;

	private final LockTemplates templates;

	private final String name = "bounds-" + UUID.randomUUID();

	HoldBoundsTests(RedisServer redis) {
		this.redis = redis;
		this.templates = new LockTemplates(redis);
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	private long pttl(String key) {
		return LockRecords.leaseLeftMillis(this.redis.template(), key);
	}

	/**
	 * A fixed lease is never renewed: the loss says that it ran out, not that a renewal
	 * failed to reach Redis.
	 */
	@Test
	void aFixedLeaseThatRanOutIsReportedAsSuch() {
		DefaultRedisLockTemplate template = this.templates.create();
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
		// Found lost by this instance's deadline check, while still held.
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> !lock.isHeldByCurrentThread());
		await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(io.github.redislock.core.LockContext::ensureHeld)
			.withMessageContaining("fixed lease of PT0.3S ran out")
			.withMessageNotContaining("renewal reached Redis");
		// The thread lets go of its lost hold (or it would stay this thread's current
		// lock for the tests that follow on it).
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageContaining("fixed lease of PT0.3S ran out")
			.withMessageContaining("no fixed lease");
		// No longer this thread's current lock (only this lock is checked: a hold another
		// test class left on the runner's thread may be current again, as happened once
		// with two test JVMs, whose classes run in another order).
		assertThat(currentLockName()).isNotEqualTo(this.name);
	}

	private static @Nullable String currentLockName() {
		try {
			return io.github.redislock.core.LockContext.lockName();
		}
		catch (IllegalStateException ex) {
			return null;
		}
	}

	@Test
	void anExtendedLeaseThatRanOutIsReportedAsSuch() {
		DefaultRedisLockTemplate template = this.templates.create();
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(lock.extend(Duration.ofMillis(300))).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageContaining("its lease, extended to PT0.3S, ran out")
			.withMessageContaining("extend it again before it ends")
			.withMessageNotContaining("renewal reached Redis");
	}

	@Test
	void shutdownKeepsWhatRemainsOfAHoldAtLeastCountedFromAnExtension() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock lock = template.getLock(this.name).withHoldAtLeast(Duration.ofSeconds(3));
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		// Past the at-least counted from the acquisition: what is kept below is counted
		// from the extension. (3 s: a stop and a new template on a loaded machine take a
		// while.)
		Thread.sleep(3100);
		assertThat(lock.extend(Duration.ofMinutes(1))).isTrue();
		template.start();
		template.stop();
		assertThat(this.templates.create().getLock(this.name).tryLock(Duration.ZERO, null)).as("kept").isFalse();
		assertThat(pttl("redislock:{" + this.name + "}")).isBetween(1L, 3000L);
		// Still ours in Redis (kept): this release keeps it too.
		lock.unlock();
		assertThat(pttl("redislock:{" + this.name + "}")).isBetween(1L, 3000L);
	}

	@Test
	void releasedLockStaysTakenUntilHoldAtLeastAfterItsAcquisition() {
		RedisLock first = this.templates.create().getLock(this.name).withHoldAtLeast(Duration.ofSeconds(2));
		RedisLock other = this.templates.create().getLock(this.name);
		long start = System.nanoTime();
		assertThat(first.tryLock(Duration.ZERO, null)).isTrue();
		first.unlock();
		assertThat(first.isHeldByCurrentThread()).isFalse();
		assertThat(other.tryLock(Duration.ZERO, null)).as("kept after the release").isFalse();
		// Redis, not a client timer, ends it: what remains of the 2 s is the key's TTL.
		long ttl = pttl("redislock:{" + this.name + "}");
		assertThat(ttl).isBetween(500L, 2000L);
		await().pollInSameThread()
			.pollInterval(Duration.ofMillis(20))
			.atMost(Duration.ofSeconds(10))
			.until(() -> other.tryLock(Duration.ZERO, null));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1900));
		other.unlock();
	}

	@Test
	void holdAtLeastAlsoAfterTheWorkFailedAndAgainstThisInstance() {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock lock = template.getLock(this.name).withHoldAtLeast(Duration.ofSeconds(30));
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> DefaultRedisLockTemplate.execute(lock, Duration.ZERO, null, () -> {
				throw new IllegalStateException("job failed");
			}));
		assertThat(this.templates.create().getLock(this.name).tryLock(Duration.ZERO, null)).isFalse();
		// The same instance's next run skips too, on this thread and on another.
		assertThat(template.getLock(this.name).tryLock(Duration.ZERO, null)).isFalse();
		assertThat(pttl("redislock:{" + this.name + "}")).isBetween(20_000L, 30_000L);
	}

	@Test
	void holdAtLeastShorterThanTheWorkReleasesAtOnce() throws Exception {
		RedisLock lock = this.templates.create().getLock(this.name).withHoldAtLeast(Duration.ofMillis(200));
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		Thread.sleep(400);
		lock.unlock();
		assertThat(LockRecords.isHeld(this.redis.template(), "redislock:{" + this.name + "}")).isFalse();
		RedisLock other = this.templates.create().getLock(this.name);
		assertThat(other.tryLock(Duration.ZERO, null)).isTrue();
		other.unlock();
	}

	@Test
	void readAndWriteSidesKeepTheirHoldAtLeast() {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisReadWriteLock other = this.templates.create().getReadWriteLock(this.name);
		RedisLock write = template.getReadWriteLock(this.name).writeLock().withHoldAtLeast(Duration.ofSeconds(30));
		assertThat(write.tryLock(Duration.ZERO, null)).isTrue();
		write.unlock();
		assertThat(other.readLock().tryLock(Duration.ZERO, null)).as("write side kept").isFalse();
		String second = this.name + "-read";
		RedisLock read = template.getReadWriteLock(second).readLock().withHoldAtLeast(Duration.ofSeconds(30));
		assertThat(read.tryLock(Duration.ZERO, null)).isTrue();
		read.unlock();
		RedisReadWriteLock otherSecond = this.templates.create().getReadWriteLock(second);
		assertThat(otherSecond.writeLock().tryLock(Duration.ZERO, null)).as("read side kept").isFalse();
		assertThat(otherSecond.readLock().tryLock(Duration.ZERO, null)).as("readers share").isTrue();
		otherSecond.readLock().unlock();
	}

	@Test
	void watchdogStopsAtMaxHoldAndTheLockIsReportedLost() throws Exception {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		DefaultRedisLockTemplate template = this.templates.create(Duration.ofSeconds(1));
		template.setLockLostListener(events::add);
		RedisLock lock = template.getLock(this.name).withMaxHold(Duration.ofSeconds(2));
		RedisLock other = this.templates.create().getLock(this.name);
		long start = System.nanoTime();
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		ExecutorService thread = Executors.newSingleThreadExecutor();
		try {
			// Renewed past its first lease...
			await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - start > 1_500_000_000L);
			assertThat(lock.isHeldByCurrentThread()).isTrue();
			assertThat(thread.submit(() -> other.tryLock(Duration.ZERO, null)).get()).isFalse();
			// ...but not past maxHold plus one lease.
			await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> !lock.isHeldByCurrentThread());
			Duration lostAfter = Duration.ofNanos(System.nanoTime() - start);
			assertThat(lostAfter).isBetween(Duration.ofMillis(1900), Duration.ofMillis(4500));
			await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 1);
			assertThat(events.get(0).getLockName()).isEqualTo(this.name);
			await().atMost(Duration.ofSeconds(10)).until(() -> thread.submit(() -> {
				if (!other.tryLock(Duration.ZERO, null)) {
					return false;
				}
				other.unlock();
				return true;
			}).get());
		}
		finally {
			thread.shutdownNow();
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !LockRecords.isHeld(this.redis.template(), "redislock:{" + this.name + "}"));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageContaining("maxHold of PT2S");
	}

	@Test
	void maxHoldComesFromTheSettingsUnlessTheLockSaysOtherwise() {
		DefaultRedisLockTemplate template = this.templates
			.create(LockSettings.DEFAULTS.withLeaseTime(Duration.ofSeconds(1)).withMaxHold(Duration.ofSeconds(1)));
		RedisLock bounded = template.getLock(this.name);
		RedisLock longer = template.getLock(this.name + "-longer").withMaxHold(Duration.ofMinutes(1));
		assertThat(bounded.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(longer.tryLock(Duration.ZERO, null)).isTrue();
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> !bounded.isHeldByCurrentThread());
		assertThat(longer.isHeldByCurrentThread()).isTrue();
		longer.unlock();
		// Gone from Redis too (the local deadline ends first): its release finds it lost.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !LockRecords.isHeld(this.redis.template(), "redislock:{" + this.name + "}"));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(bounded::unlock);
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void skippedRunIsOneDebugLineNamingTheHoldingInstance(CapturedOutput output) {
		LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
		logging.setLogLevel(AbstractRedisLock.class.getName(), LogLevel.DEBUG);
		try {
			DefaultRedisLockTemplate holder = this.templates.create();
			RedisLock held = holder.getLock(this.name);
			assertThat(held.tryLock(Duration.ZERO, null)).isTrue();
			assertThat(this.templates.create().getLock(this.name).tryLock(Duration.ZERO, null)).isFalse();
			assertThat(output).containsOnlyOnce("Lock '" + this.name + "' (exclusive) not acquired within PT0S: "
					+ "held by instance " + holder.instanceId() + ", lease left ");
			held.unlock();
		}
		finally {
			logging.setLogLevel(AbstractRedisLock.class.getName(), null);
		}
	}

	@Test
	void shutdownReleasesHeldLocksButKeepsWhatRemainsOfHoldAtLeast() throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		RedisLock plain = template.getLock(this.name);
		RedisLock bounded = template.getLock(this.name + "-bounded").withHoldAtLeast(Duration.ofSeconds(30));
		RedisLock write = template.getReadWriteLock(this.name + "-rw").writeLock();
		assertThat(plain.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(bounded.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(write.tryLock(Duration.ZERO, null)).isTrue();
		template.start();
		template.stop();
		DefaultRedisLockTemplate next = this.templates.create();
		RedisLock nextPlain = next.getLock(this.name);
		RedisLock nextWrite = next.getReadWriteLock(this.name + "-rw").writeLock();
		assertThat(nextPlain.tryLock(Duration.ofSeconds(1), null)).as("released at once").isTrue();
		assertThat(nextWrite.tryLock(Duration.ofSeconds(1), null)).isTrue();
		assertThat(next.getLock(this.name + "-bounded").tryLock(Duration.ZERO, null)).as("holdAtLeast remains")
			.isFalse();
		assertThat(pttl("redislock:{" + this.name + "-bounded}")).isBetween(20_000L, 30_000L);
		// The work that still ran under them learns that it no longer holds them.
		assertThat(plain.isHeldByCurrentThread()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(plain::unlock).withMessageContaining("shut down");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(write::unlock);
		// Still ours in Redis (kept for its hold-at-least): this release keeps it too.
		bounded.unlock();
		assertThat(next.getLock(this.name + "-bounded").tryLock(Duration.ZERO, null)).isFalse();
		nextWrite.unlock();
		nextPlain.unlock();
	}

}
