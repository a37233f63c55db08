package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.core.RedisLock;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads over two templates (two application instances) increment a plain,
 * non-atomic counter under the lock: no increment may be lost and no two holders may
 * overlap.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class MutualExclusionTests {

	private final LockTemplates templates;

	private final String name;

	/** Deliberately not atomic: a lost update shows a broken lock. */
	private int counter;

	private final AtomicInteger inside = new AtomicInteger();

	private final AtomicInteger overlaps = new AtomicInteger();

	MutualExclusionTests(RedisMode mode, RedisTargets targets) {
		RedisTarget redis = targets.get(mode);
		this.templates = new LockTemplates(redis);
		this.name = redis.lockName("exclusion-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	@Test
	void sixteenThreadsOverTwoInstancesNeverHoldTheLockTogether() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(16);
		try {
			assertExclusive(executor, 16, 40);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void twoHundredVirtualThreadsOverTwoInstancesNeverHoldTheLockTogether() throws Exception {
		ExecutorService executor = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
			.invoke(null);
		try {
			Future<Boolean> virtual = executor
				.submit(() -> (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()));
			assertThat(virtual.get()).as("runs on virtual threads").isTrue();
			assertExclusive(executor, 200, 5);
		}
		finally {
			executor.shutdownNow();
		}
	}

	private void assertExclusive(ExecutorService executor, int threads, int rounds) throws Exception {
		List<DefaultRedisLockTemplate> instances = List.of(this.templates.create(), this.templates.create());
		List<Future<Integer>> results = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			RedisLock lock = instances.get(t % 2).getLock(this.name);
			results.add(executor.submit(() -> {
				int acquired = 0;
				for (int i = 0; i < rounds; i++) {
					assertThat(lock.tryLock(Duration.ofSeconds(60), null)).isTrue();
					try {
						if (this.inside.incrementAndGet() > 1) {
							this.overlaps.incrementAndGet();
						}
						int read = this.counter;
						Thread.yield();
						this.counter = read + 1;
						acquired++;
						this.inside.decrementAndGet();
					}
					finally {
						lock.unlock();
					}
				}
				return acquired;
			}));
		}
		int acquisitions = 0;
		for (Future<Integer> result : results) {
			acquisitions += result.get(5, TimeUnit.MINUTES);
		}
		assertThat(acquisitions).isEqualTo(threads * rounds);
		assertThat(this.overlaps).hasValue(0);
		assertThat(this.counter).isEqualTo(acquisitions);
		assertThat(instances.get(0).getLock(this.name).isLocked()).isFalse();
		assertThat(instances.get(0).getActiveHoldCount() + instances.get(1).getActiveHoldCount()).isZero();
	}

}
