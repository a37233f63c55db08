package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockKind;
import io.github.redislock.core.LockObserver;
import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.FuzzTester;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * What {@link RedisLockProvider} adds to ShedLock's contract, on a real Redis server and
 * on a Redis Cluster: exclusion across instances (ShedLock's fuzz test over two),
 * {@code lockAtLeastFor} kept by the Redis server, owner-checked unlocks, losses reported
 * once, the fencing token in {@link LockContext}, and extensions whose
 * {@code lockAtLeastFor} counts from the extension.
 */
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class RedisLockProviderTests {

	private final RedisTarget redis;

	private final Instances instances;

	private final String name;

	RedisLockProviderTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.instances = new Instances(this.redis);
		this.name = this.redis.lockName("shedlock-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.instances.close();
	}

	private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
	}

	private LockConfiguration config(Duration lockAtMostFor, Duration lockAtLeastFor) {
		return config(this.name, lockAtMostFor, lockAtLeastFor);
	}

	@Test
	void fuzzTestPassesAcrossTwoInstances() throws Exception {
		RedisLockProvider first = new RedisLockProvider(this.instances.template());
		RedisLockProvider second = new RedisLockProvider(this.instances.template());
		// ShedLock's fuzz test runs its jobs on eight threads; half of them lock through
		// each instance.
		AtomicInteger threads = new AtomicInteger();
		ThreadLocal<LockProvider> instance = ThreadLocal
			.withInitial(() -> (threads.getAndIncrement() % 2 == 0) ? first : second);
		new FuzzTester((configuration) -> instance.get().lock(configuration)).doFuzzTest();
	}

	@Test
	void aShedLockNameIsTheSameLockAsADistributedLockOfThatName() {
		RedisLockProvider provider = new RedisLockProvider(this.instances.template());
		RedisLock other = this.instances.template().getLock(this.name);
		SimpleLock lock = provider.lock(config(Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
		assertThat(other.tryLock(Duration.ZERO, null)).isFalse();
		lock.unlock();
		assertThat(other.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(provider.lock(config(Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
		other.unlock();
	}

	@Test
	void lockAtLeastForIsKeptByTheRedisServerAfterTheUnlock() {
		RedisLockProvider provider = new RedisLockProvider(this.instances.template());
		RedisLockProvider other = new RedisLockProvider(this.instances.template());
		long locked = System.nanoTime();
		provider.lock(config(Duration.ofSeconds(30), Duration.ofMillis(800))).orElseThrow().unlock();
		assertThat(other.lock(config(Duration.ofSeconds(30), Duration.ZERO))).as("kept after the unlock").isEmpty();
		assertThat(pttl()).as("what remains of lockAtLeastFor, in Redis").isBetween(1L, 800L);
		SimpleLock next = await().pollInSameThread()
			.atMost(Duration.ofSeconds(5))
			.until(() -> other.lock(config(Duration.ofSeconds(30), Duration.ZERO)), Optional::isPresent)
			.orElseThrow();
		assertThat(Duration.ofNanos(System.nanoTime() - locked)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
		next.unlock();
	}

	@Test
	void anExtensionsLockAtLeastForCountsFromTheExtensionInPlaceOfTheAcquisitions() {
		RedisLockProvider provider = new RedisLockProvider(this.instances.template());
		RedisLockProvider other = new RedisLockProvider(this.instances.template());
		SimpleLock lock = provider.lock(config(Duration.ofSeconds(30), Duration.ofSeconds(20))).orElseThrow();
		lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow().unlock();
		SimpleLock taken = other.lock(config(Duration.ofSeconds(30), Duration.ZERO))
			.orElseThrow(() -> new AssertionError("not free at once: the acquisition's lockAtLeastFor was kept"));
		long extended = System.nanoTime();
		taken.extend(Duration.ofSeconds(30), Duration.ofMillis(800)).orElseThrow().unlock();
		assertThat(provider.lock(config(Duration.ofSeconds(30), Duration.ZERO))).as("kept after the unlock").isEmpty();
		assertThat(pttl()).isBetween(1L, 800L);
		await().pollInSameThread()
			.atMost(Duration.ofSeconds(5))
			.until(() -> provider.lock(config(Duration.ofSeconds(30), Duration.ZERO)), Optional::isPresent)
			.orElseThrow()
			.unlock();
		assertThat(Duration.ofNanos(System.nanoTime() - extended)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
	}

	@Test
	void anUnlockAfterTheLeaseRanOutLeavesTheNextHoldersLockAloneAndDoesNotThrow() {
		RedisLockTemplate template = this.instances.template();
		List<String> lost = observeLosses(template);
		RedisLockProvider provider = new RedisLockProvider(template);
		RedisLockProvider other = new RedisLockProvider(this.instances.template());
		SimpleLock late = provider.lock(config(Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
		SimpleLock next = await().pollInSameThread()
			.atMost(Duration.ofSeconds(5))
			.until(() -> other.lock(config(Duration.ofSeconds(30), Duration.ZERO)), Optional::isPresent)
			.orElseThrow();
		late.unlock();
		assertThat(template.getLock(this.name).isLocked()).as("the next holder's lock").isTrue();
		assertThat(provider.lock(config(Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
		await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
		assertThat(lost).as("reported once").hasSize(1);
		next.unlock();
		assertThat(template.getLock(this.name).isLocked()).isFalse();
		assertThat(((ObservableLockTemplate) template).getActiveHoldCount()).isZero();
	}

	@Test
	void aLockDeletedBehindItsBackIsReportedOnceAndItsUnlockDoesNotThrow() {
		RedisLockTemplate template = this.instances.template();
		List<String> lost = observeLosses(template);
		RedisLockProvider provider = new RedisLockProvider(template);
		SimpleLock lock = provider.lock(config(Duration.ofSeconds(30), Duration.ofSeconds(10))).orElseThrow();
		raw().delete(lockKey());
		lock.unlock();
		assertThat(lost).as("reported once").hasSize(1);
		SimpleLock again = provider.lock(config(Duration.ofSeconds(30), Duration.ofSeconds(10))).orElseThrow();
		raw().delete(lockKey());
		assertThat(again.extend(Duration.ofSeconds(30), Duration.ZERO)).as("gone").isEmpty();
		assertThatIllegalStateException().as("invalid after the extension, as ShedLock says").isThrownBy(again::unlock);
		assertThat(lost).as("the second hold's loss, once").hasSize(2);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> ((ObservableLockTemplate) template).getActiveHoldCount() == 0);
		assertThat(LockRecords.isHeld(raw(), lockKey())).as("nothing created").isFalse();
	}

	@Test
	void theJobReadsItsFencingTokenFromLockContextAndLockAssertPasses() throws Exception {
		RedisLockProvider provider = new RedisLockProvider(this.instances.template());
		DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
		List<Long> tokens = new ArrayList<>();
		onAThreadOfItsOwn(() -> {
			for (int run = 0; run < 2; run++) {
				executor.executeWithLock((Runnable) () -> {
					LockAssert.assertLocked();
					assertThat(LockContext.lockName()).isEqualTo(this.name);
					assertThat(LockContext.isHeld()).isTrue();
					long token = LockContext.fencingToken();
					tokens.add(token);
					LockExtender.extendActiveLock(Duration.ofSeconds(30), Duration.ZERO);
					assertThat(LockContext.fencingToken()).as("the same hold, extended").isEqualTo(token);
					assertThat(LockContext.isHeld()).isTrue();
				}, config(Duration.ofSeconds(30), Duration.ZERO));
				assertThat(this.instances.template().getLock(this.name).isLocked()).isFalse();
				assertThatIllegalStateException().as("no lock in the context after the job")
					.isThrownBy(LockContext::fencingToken);
			}
		});
		assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
	}

	@Test
	void aLockUnlockedOnAnotherThreadLeavesTheLockingThreadsContextByItsNextLock() throws Exception {
		RedisLockProvider provider = new RedisLockProvider(this.instances.template());
		onAThreadOfItsOwn(() -> {
			SimpleLock lock = provider.lock(config(Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
			long token = LockContext.fencingToken();
			CompletableFuture.runAsync(lock::unlock).get(10, TimeUnit.SECONDS);
			assertThat(LockContext.fencingToken()).isEqualTo(token);
			assertThat(LockContext.isHeld()).as("unlocked elsewhere").isFalse();
			String next = this.name + "-next";
			SimpleLock nextLock = provider.lock(config(next, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
			assertThat(LockContext.lockName()).isEqualTo(next);
			nextLock.unlock();
			assertThatIllegalStateException().isThrownBy(LockContext::fencingToken);
		});
	}

	@Test
	void aLockAtMostForBelowOneMillisecondIsRefused() {
		RedisLockProvider provider = new RedisLockProvider(this.instances.template());
		assertThatIllegalArgumentException().isThrownBy(() -> provider.lock(config(Duration.ZERO, Duration.ZERO)))
			.withMessageContaining(this.name);
	}

	/**
	 * Run {@code body} on a new thread, whose lock context holds nothing yet.
	 */
	private static void onAThreadOfItsOwn(ThrowingRunnable body) throws Exception {
		CompletableFuture<@Nullable Void> done = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				body.run();
				done.complete(null);
			}
			catch (Throwable ex) {
				done.completeExceptionally(ex);
			}
		});
		thread.start();
		try {
			done.get(30, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	@FunctionalInterface
	private interface ThrowingRunnable {

		void run() throws Exception;

	}

	private List<String> observeLosses(RedisLockTemplate template) {
		List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		((ObservableLockTemplate) template).setLockObserver(new LockObserver() {

			@Override
			public void lost(String metricName, LockKind kind) {
				lost.add(metricName);
			}

		});
		return lost;
	}

	private StringRedisTemplate raw() {
		return this.redis.template();
	}

	private String lockKey() {
		return "redislock:{" + this.name + "}";
	}

	private long pttl() {
		Long pttl = LockRecords.leaseLeftMillis(raw(), lockKey());
		return (pttl != null) ? pttl : -2;
	}

}
