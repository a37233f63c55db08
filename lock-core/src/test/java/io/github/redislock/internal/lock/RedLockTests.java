package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.lettuce.core.ClientOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * RedLock over five independent redis-server processes, with nodes killed, restarted and
 * frozen.
 */
@Tag("slow-fault")
@ExtendWith(RedisExtension.class)
class RedLockTests {

	private static final RedLockSettings SETTINGS = new RedLockSettings(Duration.ofMillis(100), Duration.ofMillis(50),
			0.01);

	private final RedisServers servers;

	private final List<LocalRedisServer> nodes = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedLockTemplate> templates = new ArrayList<>();

	private final String name = "redlock-" + UUID.randomUUID();

	RedLockTests(RedisServers servers) {
		this.servers = servers;
		for (int i = 0; i < 5; i++) {
			this.nodes.add(servers.start());
		}
	}

	@AfterEach
	void close() {
		this.templates.forEach(RedLockTemplate::destroy);
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	/** One application instance: its own connection to every node. */
	private RedLockTemplate instance(Duration leaseTime) {
		List<LettuceConnectionFactory> connections = new ArrayList<>();
		for (LocalRedisServer node : this.nodes) {
			LettuceClientConfiguration client = LettuceClientConfiguration.builder()
				.commandTimeout(Duration.ofSeconds(2))
				.clientOptions(ClientOptions.builder()
					.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
					.build())
				.build();
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(node.host(), node.port()), client);
			factory.afterPropertiesSet();
			factory.start();
			connections.add(factory);
		}
		this.factories.addAll(connections);
		RedLockTemplate template = new RedLockTemplate(connections, LockSettings.DEFAULTS.withLeaseTime(leaseTime),
				SETTINGS);
		this.templates.add(template);
		return template;
	}

	private RedLockTemplate instance() {
		return instance(Duration.ofSeconds(30));
	}

	@Test
	void holdAtLeastKeepsTheLockOnEveryNodeAndShutdownReleasesWhatIsLeft() {
		RedLockTemplate first = instance();
		RedisLock kept = first.getLock(this.name).withHoldAtLeast(Duration.ofSeconds(30));
		// Waits give the first calls time to connect to the nodes.
		assertThat(kept.tryLock(Duration.ofSeconds(2), null)).isTrue();
		kept.unlock();
		RedisLock plain = first.getLock(this.name + "-plain");
		assertThat(plain.tryLock(Duration.ofSeconds(2), null)).isTrue();
		RedLockTemplate second = instance();
		assertThat(second.getLock(this.name).tryLock(Duration.ofMillis(500), null)).as("kept after the release")
			.isFalse();
		// Kept where it was granted: on a majority at least.
		long keeping = this.nodes.stream()
			.map((node) -> LockRecords.leaseLeftMillis(node.template(), "redislock:{" + this.name + "}"))
			.filter((ttl) -> ttl != null && ttl >= 20_000 && ttl <= 30_000)
			.count();
		assertThat(keeping).isGreaterThanOrEqualTo(3);
		first.destroy();
		RedisLock next = second.getLock(this.name + "-plain");
		assertThat(next.tryLock(Duration.ofSeconds(1), null)).as("released at shutdown").isTrue();
		next.unlock();
		assertThat(plain.isHeldByCurrentThread()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(plain::unlock);
	}

	@Test
	void holderIsNamedFromTheNodesWithTheHoldersInstanceRecord() {
		RedLockTemplate first = instance();
		first.setApplicationName("billing");
		RedisLock lock = first.getLock(this.name);
		RedisLock seen = instance().getLock(this.name);
		assertThat(seen.holder()).isEmpty();
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(20))).isTrue();
		try {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> seen.holder().map(io.github.redislock.core.LockHolder::application).orElse(""),
						"billing"::equals);
			assertThat(seen.holder()).hasValueSatisfying((holder) -> {
				assertThat(holder.pid()).isEqualTo(ProcessHandle.current().pid());
				assertThat(holder.acquiredAt()).isNotNull();
				assertThat(holder.leaseLeft()).isPositive();
			});
		}
		finally {
			lock.unlock();
		}
		assertThat(seen.holder()).isEmpty();
	}

	@Test
	void withTwoOfFiveNodesKilledLocksAreStillAcquiredAndExclusive() {
		RedisLock first = instance().getLock(this.name);
		RedisLock second = instance().getLock(this.name);
		this.nodes.get(0).kill();
		this.nodes.get(3).kill();
		assertThat(first.tryLock(Duration.ofSeconds(2), null)).isTrue();
		assertThat(second.tryLock(Duration.ofMillis(300), null)).isFalse();
		first.unlock();
		assertThat(second.tryLock(Duration.ofSeconds(2), null)).isTrue();
		second.unlock();
	}

	@Test
	void withThreeOfFiveNodesKilledAcquisitionFailsNamingTheShortfallAndWorksAgainAfterRestart() {
		RedLockTemplate template = instance();
		List<LocalRedisServer> killed = List.of(this.nodes.get(1), this.nodes.get(2), this.nodes.get(4));
		killed.forEach(LocalRedisServer::kill);
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> template.execute(this.name, Duration.ofMillis(300), null, () -> "never"))
			.withMessageContaining("'" + this.name + "'")
			.withMessageContaining("only 2 of 5 RedLock nodes granted it, 3 needed");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		killed.forEach(this.servers::restart);
		assertThat(template.execute(this.name, Duration.ofSeconds(20), null, () -> "locked")).isEqualTo("locked");
	}

	@Test
	void frozenNodeDoesNotMakeAcquisitionWaitLongerThanTheNodeTimeout() {
		RedisLock lock = instance().getLock(this.name);
		LocalRedisServer frozen = this.nodes.get(2);
		frozen.pause();
		try {
			long start = System.nanoTime();
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			// The node timeout is 100ms; without it the frozen node would hold the call
			// for
			// the client's command timeout (2s here).
			assertThat(took).isLessThan(Duration.ofMillis(1500));
			lock.unlock();
		}
		finally {
			frozen.resume();
		}
	}

	@Test
	void twoInstancesUnderContentionNeverHoldTheLockTogether() throws Exception {
		List<RedLockTemplate> instances = List.of(instance(), instance());
		SectionHistory history = new SectionHistory();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> results = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				RedisLock lock = instances.get(t % 2).getLock(this.name);
				results.add(threads.submit(() -> {
					for (int i = 0; i < 8; i++) {
						assertThat(lock.tryLock(Duration.ofSeconds(60), null)).isTrue();
						try (SectionHistory.Open section = history.enter(true)) {
							Thread.sleep(2);
						}
						finally {
							lock.unlock();
						}
					}
					return null;
				}));
			}
			for (Future<?> result : results) {
				result.get(3, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(history.size()).isEqualTo(64);
		assertThat(history.writeOverlaps()).isEmpty();
	}

	@Test
	void reentrantOwnerCheckedAndRenewedByTheWatchdog() throws Exception {
		RedisLock lock = instance(Duration.ofMillis(600)).getLock(this.name);
		RedisLock other = instance(Duration.ofMillis(600)).getLock(this.name);
		lock.lock();
		lock.lock();
		assertThat(lock.getHoldCount()).isEqualTo(2);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(other::unlock);
		long start = System.nanoTime();
		while (System.nanoTime() - start < Duration.ofMillis(1800).toNanos()) {
			assertThat(other.tryLock()).isFalse();
			Thread.sleep(50);
		}
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.isLocked()).isTrue();
		lock.unlock();
		lock.unlock();
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	@Test
	void executeAsyncHoldsTheLockUntilTheWorkCompletesAndReleasesItAfter() throws Exception {
		RedLockTemplate template = instance(Duration.ofSeconds(5));
		java.util.concurrent.CompletableFuture<String> work = new java.util.concurrent.CompletableFuture<>();
		java.util.concurrent.CompletableFuture<String> result = template.executeAsync(this.name, Duration.ofSeconds(2),
				null, () -> work);
		RedisLock other = instance(Duration.ofSeconds(5)).getLock(this.name);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !other.tryLock(Duration.ZERO, null) || unlockAndFalse(other));
		assertThat(result).isNotDone();
		work.complete("done");
		assertThat(result.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(other.tryLock(Duration.ZERO, null)).as("released before the result completed").isTrue();
		other.unlock();
	}

	@Test
	void aHoldNoThreadOwnsIsExtendedOnAMajorityAndReleasedFromAnyThread() throws Exception {
		RedLockTemplate template = instance(Duration.ofSeconds(5));
		RedisLock other = instance().getLock(this.name);
		io.github.redislock.core.LockHandle handle = template
			.tryAcquire(this.name, Duration.ofSeconds(2), null, Duration.ofMillis(800))
			.orElseThrow();
		assertThat(handle.fencingToken()).isPositive();
		assertThat(template.getLock(this.name).tryLock(Duration.ZERO, null)).as("owned by no thread").isFalse();
		java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
		try {
			assertThat(thread.submit(() -> handle.extend(Duration.ofSeconds(20))).get(10, TimeUnit.SECONDS)).isTrue();
			long extended = this.nodes.stream()
				.map((node) -> LockRecords.leaseLeftMillis(node.template(), "redislock:{" + this.name + "}"))
				.filter((ttl) -> ttl != null && ttl > 10_000 && ttl <= 20_000)
				.count();
			assertThat(extended).as("nodes holding the new lease").isGreaterThanOrEqualTo(3);
			assertThat(other.tryLock(Duration.ZERO, null)).isFalse();
			thread.submit(handle::release).get(10, TimeUnit.SECONDS);
		}
		finally {
			thread.shutdownNow();
		}
		assertThat(handle.isHeld()).isFalse();
		assertThat(other.tryLock(Duration.ZERO, null)).as("kept for its hold-at-least from the extension").isFalse();
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> other.tryLock(Duration.ZERO, null));
		other.unlock();
		// Gone on every node behind its back: the extension finds it lost.
		io.github.redislock.core.LockHandle gone = template.tryAcquire(this.name, Duration.ofSeconds(2), null, null)
			.orElseThrow();
		this.nodes.forEach((node) -> node.template().delete("redislock:{" + this.name + "}"));
		assertThat(gone.extend(Duration.ofSeconds(20))).isFalse();
		assertThat(gone.isHeld()).isFalse();
	}

	@Test
	void executeAsyncKeepsTheLockForItsHoldAtLeast() throws Exception {
		RedLockTemplate template = instance(Duration.ofSeconds(5));
		assertThat(template
			.executeAsync(this.name, Duration.ofSeconds(2), null, Duration.ofSeconds(30),
					() -> java.util.concurrent.CompletableFuture.completedFuture("done"))
			.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(instance().getLock(this.name).tryLock(Duration.ofMillis(300), null)).as("kept").isFalse();
	}

	@Test
	void executeAsyncCancelledWhileItWaitsTakesNoLock() throws Exception {
		RedLockTemplate template = instance(Duration.ofSeconds(30));
		RedLockTemplate otherInstance = instance(Duration.ofSeconds(30));
		java.util.concurrent.CompletableFuture<Void> letGo = new java.util.concurrent.CompletableFuture<>();
		java.util.concurrent.CompletableFuture<Boolean> taken = new java.util.concurrent.CompletableFuture<>();
		Thread holder = new Thread(() -> {
			RedisLock lock = otherInstance.getLock(this.name);
			taken.complete(lock.tryLock(Duration.ZERO, null));
			letGo.join();
			lock.unlock();
		});
		holder.start();
		assertThat(taken.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
		java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
		java.util.concurrent.CompletableFuture<String> result = template.executeAsync(this.name, Duration.ofSeconds(5),
				null, () -> {
					ran.set(true);
					return java.util.concurrent.CompletableFuture.completedFuture("ran");
				});
		Thread.sleep(300);
		result.cancel(false);
		letGo.complete(null);
		holder.join(10_000);
		// The abandoned call's blocking attempt may still take the lock: it goes back.
		RedisLock next = instance(Duration.ofSeconds(30)).getLock(this.name);
		assertThat(next.tryLock(Duration.ofSeconds(10), null)).as("free after the cancelled call").isTrue();
		next.unlock();
		assertThat(ran).as("the work of a cancelled call ran").isFalse();
		assertThat(template.getActiveHoldCount()).isZero();
	}

	private static boolean unlockAndFalse(RedisLock lock) {
		lock.unlock();
		return false;
	}

	@Test
	void watchdogRenewsManyLocksInBoundedBatchesPerNode() throws Exception {
		RedLockTemplate template = instance(Duration.ofMillis(1500));
		java.util.concurrent.ExecutorService holder = java.util.concurrent.Executors.newSingleThreadExecutor();
		try {
			int count = 2 * WatchdogRenewer.BATCH_SIZE + 100;
			List<RedisLock> locks = new ArrayList<>();
			holder.submit(() -> {
				for (int i = 0; i < count; i++) {
					RedisLock lock = template.getLock(this.name + "-" + i);
					assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
					locks.add(lock);
				}
			}).get();
			io.github.redislock.test.CommandCounter counter = new io.github.redislock.test.CommandCounter(
					this.nodes.get(0));
			// A first tick loads the renew script on the node if it lacks it (a NOSCRIPT
			// answer and an EVAL more); the tick measured is the one after it.
			long first = counter.calls("evalsha", "eval");
			await().atMost(Duration.ofSeconds(10)).until(() -> counter.calls("evalsha", "eval") > first);
			long firstTickStart = System.nanoTime();
			await().atMost(Duration.ofSeconds(1)).until(() -> System.nanoTime() - firstTickStart > 250_000_000L);
			long before = counter.calls("evalsha", "eval");
			// One tick (every third of the lease, 500 ms) renews all of them: its calls
			// follow each other within milliseconds.
			await().atMost(Duration.ofSeconds(10)).until(() -> counter.calls("evalsha", "eval") > before);
			long tickStart = System.nanoTime();
			await().atMost(Duration.ofSeconds(1)).until(() -> System.nanoTime() - tickStart > 200_000_000L);
			assertThat(counter.calls("evalsha", "eval") - before).as("renew calls of one tick on one node")
				.isEqualTo(3);
			holder.submit(() -> locks.forEach(RedisLock::unlock)).get();
		}
		finally {
			holder.shutdownNow();
		}
	}

	@Test
	void interruptedCallerSendsNothing() {
		RedLockTemplate template = instance(Duration.ofSeconds(30));
		io.github.redislock.test.CommandCounter counter = new io.github.redislock.test.CommandCounter(
				this.nodes.get(0));
		long before = counter.calls("evalsha", "eval");
		RedisLock lock = template.getLock(this.name);
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(InterruptedException.class)
				.isThrownBy(() -> lock.tryLock(1, java.util.concurrent.TimeUnit.SECONDS));
		}
		finally {
			Thread.interrupted();
		}
		assertThat(counter.calls("evalsha", "eval") - before).isZero();
		assertThat(lock.isLocked()).isFalse();
	}

}
