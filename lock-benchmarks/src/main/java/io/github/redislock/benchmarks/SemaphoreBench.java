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

	/**
	 * The starter's own permit scripts ({@code acquire-semaphore.lua},
	 * {@code release-semaphore.lua}), with the arguments the engine sends for one waiting
	 * caller, sent synchronously from the raw baseline's kind of client: one shared
	 * Lettuce connection, no engine around them.
	 */
	static final String SCRIPTS_ON_RAW = "the starter's semaphore scripts on the raw baseline";

	private static final String SCRIPTS = "/io/github/redislock/internal/lock/";

	private static final AtomicLong OWNERS = new AtomicLong();

	private final int port;

	private io.lettuce.core.RedisClient rawClient;

	private io.lettuce.core.api.sync.RedisCommands<String, String> raw;

	private String acquireSha;

	private String releaseSha;

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final LettuceConnectionFactory factory;

	private final DefaultRedisLockTemplate template;

	private final RedissonClient redisson;

	SemaphoreBench(int port) {
		this.port = port;
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

	/**
	 * One acquire + release pair of {@code column} on semaphore {@code name}, for a
	 * thread of its own.
	 */
	Runnable pair(String column, String name, int permits) {
		return pair(column, name, permits, new AtomicInteger(), new AtomicInteger());
	}

	private synchronized io.lettuce.core.api.sync.RedisCommands<String, String> raw() {
		if (this.raw == null) {
			this.rawClient = io.lettuce.core.RedisClient
				.create(io.lettuce.core.RedisURI.create("127.0.0.1", this.port));
			this.raw = this.rawClient.connect().sync();
			this.acquireSha = this.raw.scriptLoad(script("acquire-semaphore.lua"));
			this.releaseSha = this.raw.scriptLoad(script("release-semaphore.lua"));
		}
		return this.raw;
	}

	private static String script(String name) {
		try (java.io.InputStream in = SemaphoreBench.class.getResourceAsStream(SCRIPTS + name)) {
			if (in == null) {
				throw new IllegalStateException("No script " + name + " on the class path");
			}
			return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private Runnable scriptsOnRaw(String name, int permits, AtomicInteger inside, AtomicInteger most) {
		io.lettuce.core.api.sync.RedisCommands<String, String> redis = raw();
		String base = "raw-sem:{" + name + "}";
		String[] acquireKeys = { base + ":permits", base + ":permits-waiters", base + ":permits:fence" };
		String[] releaseKeys = { base + ":permits", base + ":permits-waiters" };
		String owner = OWNERS.incrementAndGet() + ":";
		// As the engine sends them for one caller that would wait (its wait time is 60 s)
		// while no other caller of the instance waits: lease, permits, fencing counter
		// retention (twice the lease), will wait, others wait; the release publishes on
		// the lock's release channel only when someone waits.
		String[] acquireArgs = { owner, Long.toString(LEASE.toMillis()), Integer.toString(permits),
				Long.toString(2 * LEASE.toMillis()), "1", "0" };
		String[] releaseArgs = { owner, "redislock:" + base + ":released", base, "0" };
		return () -> {
			Long token = redis.evalsha(this.acquireSha, io.lettuce.core.ScriptOutputType.INTEGER, acquireKeys,
					acquireArgs);
			if (token == null || token <= 0) {
				throw new IllegalStateException("no permit: " + token);
			}
			most.accumulateAndGet(inside.incrementAndGet(), Math::max);
			inside.decrementAndGet();
			redis.evalsha(this.releaseSha, io.lettuce.core.ScriptOutputType.INTEGER, releaseKeys, releaseArgs);
		};
	}

	private Runnable pair(String column, String name, int permits, AtomicInteger inside, AtomicInteger most) {
		if (column.equals(SCRIPTS_ON_RAW)) {
			return scriptsOnRaw(name, permits, inside, most);
		}
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
		if (this.rawClient != null) {
			this.rawClient.shutdown();
		}
	}

}
