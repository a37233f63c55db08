package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Read-write locks against a real Redis server and a real Redis Cluster.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class ReadWriteLockTests {

	private final LockTemplates templates;

	private final String name;

	private final StringRedisTemplate raw;

	private final List<ExecutorService> threads = new ArrayList<>();

	ReadWriteLockTests(RedisMode mode, RedisTargets targets) {
		RedisTarget redis = targets.get(mode);
		this.templates = new LockTemplates(redis);
		this.raw = redis.template();
		this.name = redis.lockName("rw-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.threads.forEach(ExecutorService::shutdownNow);
		this.templates.close();
	}

	/** A thread of its own: locks are owned by threads. */
	private ExecutorService thread() {
		ExecutorService thread = Executors.newSingleThreadExecutor();
		this.threads.add(thread);
		return thread;
	}

	private RedisReadWriteLock instance() {
		return this.templates.create().getReadWriteLock(this.name);
	}

	@Test
	void writersExcludeEveryoneWhileReadersShareAcrossTwoInstances() throws Exception {
		List<RedisReadWriteLock> instances = List.of(instance(), instance());
		SectionHistory history = new SectionHistory();
		ExecutorService pool = Executors.newFixedThreadPool(12);
		this.threads.add(pool);
		List<Future<?>> results = new ArrayList<>();
		for (int t = 0; t < 12; t++) {
			boolean write = t < 4;
			RedisReadWriteLock lock = instances.get(t % 2);
			results.add(pool.submit(() -> {
				RedisLock side = write ? lock.writeLock() : lock.readLock();
				for (int i = 0; i < (write ? 5 : 8); i++) {
					assertThat(side.tryLock(Duration.ofSeconds(60), null)).isTrue();
					try (SectionHistory.Open section = history.enter(write)) {
						Thread.sleep(write ? 5 : 20);
					}
					finally {
						side.unlock();
					}
				}
				return null;
			}));
		}
		for (Future<?> result : results) {
			result.get(3, TimeUnit.MINUTES);
		}
		assertThat(history.size()).isEqualTo(4 * 5 + 8 * 8);
		assertThat(history.writeOverlaps()).isEmpty();
		assertThat(history.readOverlaps()).as("readers ran side by side").isPositive();
	}

	@Test
	void historyCheckerCatchesAPlantedOverlap() {
		SectionHistory history = new SectionHistory();
		history.add(false, 0, 10);
		history.add(false, 5, 15);
		assertThat(history.writeOverlaps()).isEmpty();
		assertThat(history.readOverlaps()).isEqualTo(1);
		history.add(true, 14, 20);
		assertThat(history.writeOverlaps()).hasSize(1);
	}

	@Test
	void oneReadersReleaseDoesNotLetAWriterInWhileAnotherReaderHolds() throws Exception {
		RedisLock readerA = instance().readLock();
		RedisLock readerB = instance().readLock();
		RedisLock writer = instance().writeLock();
		ExecutorService threadA = thread();
		ExecutorService threadB = thread();
		assertThat(threadA.submit(() -> readerA.tryLock()).get()).isTrue();
		assertThat(threadB.submit(() -> readerB.tryLock()).get()).isTrue();
		threadB.submit(readerB::unlock).get();
		assertThat(writer.tryLock()).isFalse();
		assertThat(readerA.isLocked()).isTrue();
		threadA.submit(readerA::unlock).get();
		assertThat(writer.tryLock(Duration.ofSeconds(10), null)).isTrue();
		writer.unlock();
	}

	@Test
	void crashedReaderBlocksWritersOnlyUntilItsOwnLeaseEnds() throws Exception {
		DefaultRedisLockTemplate crashing = this.templates.create(Duration.ofSeconds(1));
		RedisLock reader = crashing.getReadWriteLock(this.name).readLock();
		RedisLock survivor = instance().readLock();
		RedisLock writer = instance().writeLock();
		assertThat(thread().submit(() -> reader.tryLock()).get()).isTrue();
		ExecutorService survivorThread = thread();
		assertThat(survivorThread.submit(() -> survivor.tryLock()).get()).isTrue();
		survivorThread.submit(survivor::unlock).get();
		// No more renewals and no release, as if the process died.
		crashing.stopRenewing();
		assertThat(writer.tryLock()).isFalse();
		long start = System.nanoTime();
		assertThat(writer.tryLock(Duration.ofSeconds(20), null)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
		writer.unlock();
	}

	@Test
	void readerWhoseHoldExpiredFindsItLostAtRelease() throws Exception {
		RedisLock reader = instance().readLock();
		assertThat(reader.tryLock(Duration.ZERO, Duration.ofMillis(200))).isTrue();
		RedisLock writer = instance().writeLock();
		ExecutorService writerThread = thread();
		assertThat(writerThread.submit(() -> writer.tryLock(Duration.ofSeconds(10), null)).get()).isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(reader::unlock);
		assertThat(writer.isLocked()).as("the writer's lock is untouched").isTrue();
		writerThread.submit(writer::unlock).get();
	}

	@Test
	void aReadersExtensionGivesItsOwnEntryANewLeaseAndLeavesOtherReadersAlone() throws Exception {
		RedisReadWriteLock lock = instance();
		RedisReadWriteLock other = instance();
		ExecutorService otherThread = thread();
		assertThat(lock.readLock().tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue();
		assertThat(otherThread.submit(() -> other.readLock().tryLock(Duration.ZERO, Duration.ofMillis(500))).get())
			.isTrue();
		assertThat(lock.readLock().extend(Duration.ofSeconds(30))).isTrue();
		// The other reader's fixed lease runs out as it would have; this one's does not.
		await().pollInSameThread()
			.atMost(Duration.ofSeconds(5))
			.until(() -> !otherThread.submit(() -> other.readLock().isHeldByCurrentThread()).get());
		sleep(300);
		assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
		RedisLock writer = instance().writeLock();
		assertThat(otherThread.submit(() -> writer.tryLock(Duration.ZERO, null)).get()).as("still read-locked")
			.isFalse();
		assertThat(lock.readLock().remainingLease()).isGreaterThan(Duration.ofSeconds(20));
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> lock.writeLock().extend(Duration.ofSeconds(1)));
		lock.readLock().unlock();
		assertThat(otherThread.submit(() -> writer.tryLock(Duration.ofSeconds(5), null)).get()).isTrue();
		assertThat(otherThread.submit(() -> writer.extend(Duration.ofSeconds(20))).get()).isTrue();
		assertThat(writer.remainingLease()).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(20));
		assertThat(lock.readLock().tryLock(Duration.ZERO, null)).as("write-locked").isFalse();
		otherThread.submit(writer::unlock).get();
	}

	@Test
	void anExtensionOfEitherSideFindsItsHoldGoneAndAnswersFalse() throws Exception {
		RedisReadWriteLock lock = instance();
		RedisReadWriteLock other = instance();
		ExecutorService otherThread = thread();
		lock.writeLock().lock();
		this.raw.delete("redislock:{" + this.name + "}:write");
		assertThat(otherThread.submit(() -> other.writeLock().tryLock(Duration.ZERO, Duration.ofSeconds(30))).get())
			.isTrue();
		assertThat(lock.writeLock().extend(Duration.ofSeconds(60))).isFalse();
		assertThat(lock.writeLock().isHeldByCurrentThread()).isFalse();
		assertThat(other.writeLock().remainingLease()).as("the other writer's lease")
			.isLessThanOrEqualTo(Duration.ofSeconds(30));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock.writeLock()::unlock);
		otherThread.submit(other.writeLock()::unlock).get();
		lock.readLock().lock();
		this.raw.delete("redislock:{" + this.name + "}:read");
		assertThat(lock.readLock().extend(Duration.ofSeconds(60))).isFalse();
		assertThat(this.raw.hasKey("redislock:{" + this.name + "}:read")).as("nothing created").isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock.readLock()::unlock);
	}

	@Test
	void bothSidesKeepAHoldAtLeastCountedFromTheirExtension() throws Exception {
		RedisReadWriteLock lock = instance();
		RedisReadWriteLock other = instance();
		ExecutorService otherThread = thread();
		Duration atLeast = Duration.ofMillis(800);
		for (boolean write : new boolean[] { true, false }) {
			RedisLock side = write ? lock.writeLock() : lock.readLock();
			RedisLock held = side.withHoldAtLeast(atLeast);
			assertThat(held.tryLock(Duration.ZERO, null)).isTrue();
			sleep(900);
			long extended = System.nanoTime();
			assertThat(held.extend(Duration.ofSeconds(30))).isTrue();
			held.unlock();
			assertThat(otherThread.submit(() -> other.writeLock().tryLock(Duration.ZERO, null)).get())
				.as((write ? "write" : "read") + " side kept after its release")
				.isFalse();
			assertThat(otherThread.submit(() -> other.writeLock().tryLock(Duration.ofSeconds(10), null)).get())
				.isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - extended)).as(write ? "write" : "read")
				.isGreaterThanOrEqualTo(Duration.ofMillis(700));
			otherThread.submit(other.writeLock()::unlock).get();
		}
	}

	@Test
	void bothSidesAreReentrant() {
		RedisReadWriteLock lock = instance();
		lock.readLock().lock();
		lock.readLock().lock();
		assertThat(lock.readLock().getHoldCount()).isEqualTo(2);
		lock.readLock().unlock();
		lock.readLock().unlock();
		assertThat(lock.readLock().isLocked()).isFalse();
		lock.writeLock().lock();
		lock.writeLock().lock();
		long token = lock.writeLock().fencingToken();
		assertThat(lock.writeLock().getHoldCount()).isEqualTo(2);
		lock.writeLock().unlock();
		assertThat(lock.writeLock().isLocked()).isTrue();
		assertThat(lock.writeLock().fencingToken()).isEqualTo(token);
		lock.writeLock().unlock();
		assertThat(lock.writeLock().isLocked()).isFalse();
	}

	@Test
	void writerMayDowngradeToReader() throws Exception {
		RedisReadWriteLock lock = instance();
		RedisReadWriteLock other = instance();
		lock.writeLock().lock();
		assertThat(lock.readLock().tryLock()).isTrue();
		lock.writeLock().unlock();
		ExecutorService otherThread = thread();
		assertThat(otherThread.submit(() -> other.writeLock().tryLock()).get()).isFalse();
		assertThat(otherThread.submit(() -> {
			boolean acquired = other.readLock().tryLock();
			other.readLock().unlock();
			return acquired;
		}).get()).isTrue();
		lock.readLock().unlock();
		assertThat(otherThread.submit(() -> {
			boolean acquired = other.writeLock().tryLock();
			other.writeLock().unlock();
			return acquired;
		}).get()).isTrue();
	}

	@Test
	void upgradingFromReadToWriteFailsFast() {
		RedisReadWriteLock lock = instance();
		lock.readLock().lock();
		long start = System.nanoTime();
		assertThatIllegalStateException().isThrownBy(() -> lock.writeLock().tryLock(Duration.ofSeconds(30), null))
			.withMessageContaining("holds the read lock of '" + this.name + "'");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		lock.readLock().unlock();
		assertThat(lock.writeLock().tryLock()).isTrue();
		lock.writeLock().unlock();
	}

	@Test
	void readersAndWritersTokensStrictlyIncrease() {
		RedisReadWriteLock lock = instance();
		long previous = 0;
		for (int i = 0; i < 6; i++) {
			RedisLock side = (i % 2 == 0) ? lock.writeLock() : lock.readLock();
			side.lock();
			assertThat(side.fencingToken()).isGreaterThan(previous);
			previous = side.fencingToken();
			side.unlock();
		}
	}

	/**
	 * Two readers relay the read lock so that it is never free: each takes it while the
	 * other still holds it, then lets go once the other has it again (or after 50 ms).
	 * Without writer preference the writer could never get in.
	 */
	@Test
	void waitingWriterIsNotStarvedByContinuousReaders() throws Exception {
		RedisReadWriteLock readers = instance();
		RedisLock writer = instance().writeLock();
		Semaphore[] took = { new Semaphore(0), new Semaphore(0) };
		AtomicBoolean stop = new AtomicBoolean();
		List<Future<Integer>> relay = new ArrayList<>();
		for (int r = 0; r < 2; r++) {
			int me = r;
			relay.add(thread().submit(() -> {
				int holds = 0;
				while (!stop.get()) {
					if (!readers.readLock().tryLock(Duration.ofSeconds(30), null)) {
						continue;
					}
					holds++;
					took[me].release();
					took[1 - me].tryAcquire(50, TimeUnit.MILLISECONDS);
					readers.readLock().unlock();
				}
				return holds;
			}));
		}
		assertThat(took[0].tryAcquire(10, TimeUnit.SECONDS)).isTrue();
		assertThat(writer.tryLock()).as("the relay holds the read lock").isFalse();
		long start = System.nanoTime();
		boolean acquired = writer.tryLock(Duration.ofSeconds(15), null);
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		stop.set(true);
		assertThat(acquired).as("writer acquired while readers kept coming").isTrue();
		assertThat(waited).isLessThan(Duration.ofSeconds(15));
		writer.unlock();
		for (Future<Integer> reader : relay) {
			assertThat(reader.get(60, TimeUnit.SECONDS)).isPositive();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
