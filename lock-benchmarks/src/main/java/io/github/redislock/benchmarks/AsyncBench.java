package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.redislock.internal.lock.DefaultReactiveRedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import org.redisson.Redisson;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonClient;
import org.redisson.api.RedissonReactiveClient;
import org.redisson.config.Config;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Asynchronous locking: the starter's {@code ReactiveRedisLockTemplate} against
 * Redisson's {@code RLockReactive}, in one process. Uncontended: lock+unlock pairs on own
 * keys with 1,000 in flight, no thread per pair. Hand-off: one key, a waiter subscribed
 * before the holder releases; the time from the release call to the waiter's acquisition.
 */
final class AsyncBench implements AutoCloseable {

	static final String STARTER = "starter (reactive template)";

	static final String REDISSON = "Redisson RLockReactive";

	private final LettuceConnectionFactory factory;

	private final DefaultRedisLockTemplate template;

	private final DefaultReactiveRedisLockTemplate reactive;

	private final RedissonClient redisson;

	private final RedissonReactiveClient redissonReactive;

	AsyncBench(int port) {
		this.factory = Columns.connectionFactory(port);
		this.template = new DefaultRedisLockTemplate(this.factory);
		this.reactive = new DefaultReactiveRedisLockTemplate(this.template);
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
		this.redisson = Redisson.create(config);
		this.redissonReactive = this.redisson.reactive();
	}

	/**
	 * Lock+unlock pairs per second, {@code inFlight} at a time, over {@code window}.
	 */
	double pairsPerSecond(String column, String prefix, int inFlight, Duration window) {
		long end = System.nanoTime() + window.toNanos();
		long start = System.nanoTime();
		Long pairs = Flux.range(0, Integer.MAX_VALUE)
			.takeWhile((i) -> System.nanoTime() < end)
			.flatMap((i) -> pair(column, prefix + ":" + (i % inFlight)), inFlight)
			.count()
			.block(window.plusMinutes(1));
		long elapsed = System.nanoTime() - start;
		return pairs * 1e9 / elapsed;
	}

	private Mono<Long> pair(String column, String key) {
		if (column.equals(STARTER)) {
			return this.reactive.execute(key, Duration.ofSeconds(30), null, Mono::just);
		}
		RLockReactive lock = this.redissonReactive.getLock(key);
		long threadId = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
		return lock.tryLock(30, -1, TimeUnit.SECONDS, threadId)
			.flatMap((acquired) -> lock.unlock(threadId).thenReturn(1L));
	}

	/**
	 * Hand-off latencies in nanoseconds: {@code samples} times, a holder takes the key, a
	 * waiter subscribes, the holder releases; from the release call to the waiter's
	 * acquisition.
	 */
	long[] handOffNanos(String column, String key, int samples) throws Exception {
		long[] latencies = new long[samples];
		for (int i = 0; i < samples; i++) {
			if (column.equals(STARTER)) {
				latencies[i] = starterHandOff(key);
			}
			else {
				latencies[i] = redissonHandOff(key);
			}
		}
		return latencies;
	}

	private long starterHandOff(String key) throws Exception {
		io.github.redislock.core.RedisLock lock = this.template.getLock(key);
		io.github.redislock.core.LockHandle holder = lock.tryAcquireAsync(Duration.ofSeconds(30), null)
			.get(30, TimeUnit.SECONDS)
			.orElseThrow();
		CompletableFuture<java.util.Optional<io.github.redislock.core.LockHandle>> waiter = lock
			.tryAcquireAsync(Duration.ofSeconds(30), null);
		// Let the waiter's first attempt find the lock taken and start waiting.
		Thread.sleep(2);
		long t0 = System.nanoTime();
		holder.releaseAsync();
		io.github.redislock.core.LockHandle next = waiter.get(30, TimeUnit.SECONDS).orElseThrow();
		long latency = System.nanoTime() - t0;
		next.releaseAsync().get(30, TimeUnit.SECONDS);
		return latency;
	}

	private long redissonHandOff(String key) {
		RLockReactive lock = this.redissonReactive.getLock(key);
		long holderId = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
		long waiterId = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
		lock.lock(holderId).block(Duration.ofSeconds(30));
		CompletableFuture<Void> waiter = lock.lock(waiterId).toFuture();
		sleep(2);
		long t0 = System.nanoTime();
		lock.unlock(holderId).subscribe();
		waiter.join();
		long latency = System.nanoTime() - t0;
		lock.unlock(waiterId).block(Duration.ofSeconds(30));
		return latency;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() throws Exception {
		this.template.destroy();
		this.factory.destroy();
		this.redisson.shutdown();
	}

}
