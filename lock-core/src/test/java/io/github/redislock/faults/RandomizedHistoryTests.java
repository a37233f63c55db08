package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random re-entrant exclusive and read-write operations from threads of two instances,
 * recorded and checked by {@link LockHistory}: no two believed-held intervals of one lock
 * overlap unless both are reads, fencing tokens increase in hold order, and the fenced
 * resources accepted every write in token order.
 */
@ExtendWith(RedisExtension.class)
class RandomizedHistoryTests {

	private static final int THREADS_PER_INSTANCE = 3;

	private static final int OPERATIONS_PER_THREAD = 150;

	private final RedisServer redis;

	private final List<DefaultRedisLockTemplate> instances = new ArrayList<>();

	private final String prefix = UUID.randomUUID().toString();

	private final LockHistory history = new LockHistory();

	private final Map<String, FencedResource> resources = new ConcurrentHashMap<>();

	private final AtomicInteger refusedWrites = new AtomicInteger();

	RandomizedHistoryTests(RedisServer redis) {
		this.redis = redis;
	}

	@AfterEach
	void close() throws Exception {
		for (DefaultRedisLockTemplate instance : this.instances) {
			instance.destroy();
		}
	}

	@Test
	void randomReentrantAndReadWriteOperationsOfTwoInstancesLeaveASoundHistory() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS_PER_INSTANCE);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				DefaultRedisLockTemplate instance = new DefaultRedisLockTemplate(this.redis.connectionFactory(),
						LockSettings.DEFAULTS.withLeaseTime(Duration.ofSeconds(5)));
				this.instances.add(instance);
				for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
					String client = "instance-" + i + "/thread-" + t;
					work.add(threads.submit(() -> {
						for (int op = 0; op < OPERATIONS_PER_THREAD; op++) {
							operate(instance, client);
						}
						return null;
					}));
				}
			}
			for (Future<?> future : work) {
				future.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
		this.resources.values().forEach((resource) -> resource.copyLogTo(this.history));
		assertThat(this.history.holdCount()).isEqualTo(2 * THREADS_PER_INSTANCE * OPERATIONS_PER_THREAD);
		assertThat(this.refusedWrites).hasValue(0);
		assertThat(this.history.violations()).isEmpty();
	}

	private void operate(DefaultRedisLockTemplate instance, String client) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		int kind = random.nextInt(4);
		String name = this.prefix + ":" + random.nextInt(2);
		if (kind < 2) {
			hold(instance.getLock(name), client, name, false, random.nextInt(3));
		}
		else {
			var readWrite = instance.getReadWriteLock(name + ":rw");
			boolean write = kind == 3;
			hold(write ? readWrite.writeLock() : readWrite.readLock(), client, name + ":rw", !write, 0);
		}
	}

	private void hold(RedisLock lock, String client, String name, boolean shared, int reentries) {
		if (!lock.tryLock(Duration.ofSeconds(60), null)) {
			throw new IllegalStateException(client + " did not get " + name);
		}
		long from = LockHistory.nowMicros();
		long token = lock.fencingToken();
		for (int i = 0; i < reentries; i++) {
			lock.lock();
			assertThat(lock.fencingToken()).as("re-entry keeps the token").isEqualTo(token);
		}
		if (!shared) {
			FencedResource resource = this.resources.computeIfAbsent(name,
					(key) -> new FencedResource(this.redis.template(), key));
			if (!resource.write(client, token, client)) {
				this.refusedWrites.incrementAndGet();
			}
		}
		LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(1500)));
		assertThat(LockContext.isHeld()).isTrue();
		for (int i = 0; i < reentries; i++) {
			lock.unlock();
		}
		long to = LockHistory.nowMicros();
		lock.unlock();
		if (shared) {
			this.history.heldShared(client, name, token, from, to);
		}
		else {
			this.history.held(client, name, token, from, to);
		}
	}

}
