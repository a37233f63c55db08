package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Semaphores: the starter's {@code RedisSemaphore} against Redisson's
 * {@code RPermitExpirableSemaphore}, both with a 30 s lease per permit, in one process.
 * Pairs are acquire + release; the most holders at once is checked against the permits.
 */
final class SemaphoreBench implements AutoCloseable {

	static final String STARTER = "starter RedisSemaphore";

	static final String REDISSON = "Redisson RPermitExpirableSemaphore";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final LettuceConnectionFactory factory;

	private final DefaultRedisLockTemplate template;

	private final RedissonClient redisson;

	SemaphoreBench(int port) {
		this.factory = Columns.connectionFactory(port);
		this.template = new DefaultRedisLockTemplate(this.factory);
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
		this.redisson = Redisson.create(config);
	}

	/**
	 * Pairs per second of {@code threads} threads over {@code window}; each thread uses
	 * semaphore {@code name} (or its own, {@code name:t}, when {@code ownSemaphore}).
	 */
	double pairsPerSecond(String column, String name, int permits, int threads, boolean ownSemaphore, Duration window)
			throws Exception {
		AtomicLong pairs = new AtomicLong();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		long end = System.nanoTime() + window.toNanos();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				String semaphore = ownSemaphore ? name + ":" + t : name;
				// Holders are counted per semaphore: one count per thread when each has
				// its own.
				Runnable pair = ownSemaphore ? pair(column, semaphore, permits, new AtomicInteger(), most)
						: pair(column, semaphore, permits, inside, most);
				done.add(executor.submit(() -> {
					while (System.nanoTime() < end) {
						pair.run();
						pairs.incrementAndGet();
					}
				}));
			}
			long start = System.nanoTime();
			for (Future<?> future : done) {
				future.get(window.toMillis() + 60_000, TimeUnit.MILLISECONDS);
			}
			if (most.get() > permits) {
				throw new IllegalStateException(column + ": " + most.get() + " holders of " + permits + " permits");
			}
			return pairs.get() * 1e9 / (System.nanoTime() - start + 1);
		}
		finally {
			executor.shutdownNow();
		}
	}

	private Runnable pair(String column, String name, int permits, AtomicInteger inside, AtomicInteger most) {
		if (column.equals(STARTER)) {
			RedisSemaphore semaphore = this.template.getSemaphore(name, permits);
			return () -> {
				try (SemaphorePermit permit = semaphore.tryAcquire(Duration.ofSeconds(60), LEASE).orElseThrow()) {
					most.accumulateAndGet(inside.incrementAndGet(), Math::max);
					inside.decrementAndGet();
				}
			};
		}
		RPermitExpirableSemaphore semaphore = this.redisson.getPermitExpirableSemaphore(name);
		semaphore.trySetPermits(permits);
		return () -> {
			try {
				String permit = semaphore.tryAcquire(60, LEASE.toSeconds(), TimeUnit.SECONDS);
				if (permit == null) {
					throw new IllegalStateException("no permit");
				}
				most.accumulateAndGet(inside.incrementAndGet(), Math::max);
				inside.decrementAndGet();
				semaphore.release(permit);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		};
	}

	@Override
	public void close() throws Exception {
		this.template.destroy();
		this.factory.destroy();
		this.redisson.shutdown();
	}

}
