package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.ReleaseMessages;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Read-write waiters are woken by the release whatever the holder's and the waiter's
 * leases, and a writer that stops waiting leaves nothing behind that delays readers. The
 * waiter and the holder are on different instances, so only the release message can wake
 * the waiter before its wait ends.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class ReadWriteLivenessTests {

	/** Generous: far below the waits that a missed wake-up would cost. */
	private static final Duration WAKE_UP_BOUND = Duration.ofSeconds(5);

	private static final Duration LONG_WAIT = Duration.ofSeconds(20);

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final String name;

	private final ExecutorService holderThread = Executors.newSingleThreadExecutor();

	private final ExecutorService waiterThread = Executors.newSingleThreadExecutor();

	private final LettuceConnectionFactory connectionFactory;

	ReadWriteLivenessTests(RedisMode mode, RedisTargets targets) {
		RedisTarget redis = targets.get(mode);
		this.connectionFactory = redis.connectionFactory();
		this.templates = new LockTemplates(redis);
		this.raw = redis.template();
		this.name = redis.lockName("rw-live-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.holderThread.shutdownNow();
		this.waiterThread.shutdownNow();
		this.templates.close();
	}

	private String key(String suffix) {
		return "redislock:{" + this.name + "}:" + suffix;
	}

	/** Let time pass beyond the waiter's own (short) lease while it waits. */
	private void outlast(Duration lease) {
		long until = System.nanoTime() + lease.toNanos() + TimeUnit.MILLISECONDS.toNanos(500);
		await().atMost(lease.plusSeconds(10)).until(() -> System.nanoTime() > until);
	}

	/**
	 * A write hold whose fixed lease ran out before the work ended frees the lock
	 * silently; waiters that were told to wait for something longer (a queued writer's
	 * marker) would sleep on. Its late release finds the hold gone, and still tells the
	 * waiters that the lock is free (found by {@code RandomizedLivenessTests}, seed
	 * -2665185020532259403 on the Cluster: a reader waited 7 s, the lock free for 2.4 s).
	 */
	@Test
	void lateReleaseOfAnExpiredWriteHoldStillWakesTheWaiters() throws Exception {
		RedisLock writer = this.templates.create().getReadWriteLock(this.name).writeLock();
		RedisLock reader = this.templates.create().getReadWriteLock(this.name).readLock();
		try (ReleaseMessages released = ReleaseMessages.listen(this.connectionFactory, key("write:released"))) {
			List<String> messages = released.messages();
			assertThat(writer.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
			// A reader of another instance waits a moment: it flags that someone waits.
			assertThat(this.waiterThread.submit(() -> reader.tryLock(Duration.ofMillis(50), null)).get()).isFalse();
			assertThat(this.raw.hasKey(key("waiters"))).isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> !this.raw.hasKey(key("write")));
			messages.clear();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(writer::unlock);
			await().atMost(Duration.ofSeconds(5)).until(() -> !messages.isEmpty());
			assertThat(this.raw.hasKey(key("waiters"))).as("the flag is consumed as by any release").isFalse();
		}
	}

	@Test
	void readerWithAShortLeaseIsWokenByTheReleaseOfALongLeaseWriter() throws Exception {
		RedisReadWriteLock holder = this.templates.create().getReadWriteLock(this.name);
		RedisReadWriteLock waiter = this.templates.create().getReadWriteLock(this.name);
		assertThat(
				this.holderThread.submit(() -> holder.writeLock().tryLock(Duration.ZERO, Duration.ofSeconds(60))).get())
			.isTrue();
		AtomicLong acquiredAt = new AtomicLong();
		Future<Boolean> reading = this.waiterThread.submit(() -> {
			boolean acquired = waiter.readLock().tryLock(LONG_WAIT, Duration.ofSeconds(1));
			acquiredAt.set(System.nanoTime());
			return acquired;
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> Boolean.TRUE.equals(this.raw.hasKey(key("waiters"))));
		outlast(Duration.ofSeconds(1));
		long releasedAt = this.holderThread.submit(() -> {
			holder.writeLock().unlock();
			return System.nanoTime();
		}).get();
		assertThat(reading.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(acquiredAt.get() - releasedAt)).isLessThan(WAKE_UP_BOUND);
	}

	@Test
	void writerWithAShortLeaseKeepsItsPreferenceAndIsWokenBehindLongLeaseReaders() throws Exception {
		RedisReadWriteLock holder = this.templates.create().getReadWriteLock(this.name);
		RedisReadWriteLock waiter = this.templates.create().getReadWriteLock(this.name);
		RedisReadWriteLock latecomer = this.templates.create().getReadWriteLock(this.name);
		assertThat(
				this.holderThread.submit(() -> holder.readLock().tryLock(Duration.ZERO, Duration.ofSeconds(60))).get())
			.isTrue();
		AtomicLong acquiredAt = new AtomicLong();
		Future<Boolean> writing = this.waiterThread.submit(() -> {
			boolean acquired = waiter.writeLock().tryLock(LONG_WAIT, Duration.ofSeconds(1));
			acquiredAt.set(System.nanoTime());
			return acquired;
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> Boolean.TRUE.equals(this.raw.hasKey(key("queued"))));
		outlast(Duration.ofSeconds(1));
		assertThat(latecomer.readLock().tryLock(Duration.ZERO, Duration.ofSeconds(60)))
			.as("a new reader queues behind the waiting writer")
			.isFalse();
		long releasedAt = this.holderThread.submit(() -> {
			holder.readLock().unlock();
			return System.nanoTime();
		}).get();
		assertThat(writing.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(acquiredAt.get() - releasedAt)).isLessThan(WAKE_UP_BOUND);
	}

	@Test
	void writerInterruptedWhileWaitingLeavesNothingThatDelaysReaders() throws Exception {
		RedisReadWriteLock holder = this.templates.create().getReadWriteLock(this.name);
		RedisReadWriteLock writer = this.templates.create().getReadWriteLock(this.name);
		RedisReadWriteLock reader = this.templates.create().getReadWriteLock(this.name);
		assertThat(
				this.holderThread.submit(() -> holder.readLock().tryLock(Duration.ZERO, Duration.ofSeconds(60))).get())
			.isTrue();
		Future<Boolean> writing = this.waiterThread.submit(() -> {
			try {
				return writer.writeLock().tryLock(LONG_WAIT.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				return false;
			}
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> Boolean.TRUE.equals(this.raw.hasKey(key("queued"))));
		writing.cancel(true);
		await().atMost(Duration.ofSeconds(10)).until(() -> !Boolean.TRUE.equals(this.raw.hasKey(key("queued"))));
		assertThat(reader.readLock().tryLock(Duration.ZERO, Duration.ofSeconds(60))).isTrue();
		reader.readLock().unlock();
	}

	@Test
	void readerQueuedBehindAWriterOfItsOwnInstanceIsWokenWhenThatWriterGivesUp() throws Exception {
		RedisReadWriteLock otherInstance = this.templates.create().getReadWriteLock(this.name);
		DefaultRedisLockTemplate sameInstance = this.templates.create();
		assertThat(
				this.holderThread.submit(() -> otherInstance.readLock().tryLock(Duration.ZERO, Duration.ofSeconds(60)))
					.get())
			.isTrue();
		ExecutorService writerThread = Executors.newSingleThreadExecutor();
		try {
			Future<Boolean> writing = writerThread.submit(
					() -> sameInstance.getReadWriteLock(this.name).writeLock().tryLock(Duration.ofMillis(1500), null));
			await().atMost(Duration.ofSeconds(10)).until(() -> Boolean.TRUE.equals(this.raw.hasKey(key("queued"))));
			AtomicLong acquiredAt = new AtomicLong();
			Future<Boolean> reading = this.waiterThread.submit(() -> {
				boolean acquired = sameInstance.getReadWriteLock(this.name).readLock().tryLock(LONG_WAIT, null);
				acquiredAt.set(System.nanoTime());
				return acquired;
			});
			assertThat(writing.get(30, TimeUnit.SECONDS)).as("the writer gives up").isFalse();
			long gaveUpAt = System.nanoTime();
			assertThat(reading.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(Duration.ofNanos(acquiredAt.get() - gaveUpAt)).isLessThan(WAKE_UP_BOUND);
			this.waiterThread.submit(() -> sameInstance.getReadWriteLock(this.name).readLock().unlock()).get();
		}
		finally {
			writerThread.shutdownNow();
		}
	}

}
