package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.internal.lock.RedLockSettings;
import io.github.redislock.internal.lock.RedLockTemplate;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The columns of the benchmark tables, each created on its own connections.
 */
final class Columns {

	/** Column ids, in table order. */
	static final List<String> ALL = List.of("starter-watchdog", "starter-fixed", "redisson", "si-spin", "si-pubsub",
			"raw", "raw-scripts");

	private Columns() {
	}

	/**
	 * Create a column.
	 * @param id one of {@link #ALL}, or {@code raw-pubsub} (the raw baseline whose
	 * release publishes, so that waiters wake up), or {@code raw-scripts} and
	 * {@code raw-scripts-pubsub} (the raw baseline's client, threads and waiting, sending
	 * the starter's own acquire and release scripts: what the scripts cost without the
	 * starter's Java around them)
	 */
	static Column create(String id, int port) {
		return switch (id) {
			case "starter-watchdog" -> new Starter(port, false, Duration.ofSeconds(30));
			case "starter-fixed" -> new Starter(port, true, Duration.ofSeconds(30));
			case "redisson" -> new Redis(port, 30_000);
			case "si-spin" -> new Integration(port, RedisLockType.SPIN_LOCK);
			case "si-pubsub" -> new Integration(port, RedisLockType.PUB_SUB_LOCK);
			case "raw" -> new Raw(port, false, false);
			case "raw-pubsub" -> new Raw(port, true, false);
			case "raw-scripts" -> new Raw(port, false, true);
			case "raw-scripts-pubsub" -> new Raw(port, true, true);
			default -> throw new IllegalArgumentException("Unknown column " + id);
		};
	}

	static String title(String id) {
		return switch (id) {
			case "starter-watchdog" -> "starter (watchdog)";
			case "starter-fixed" -> "starter (fixed lease)";
			case "redisson" -> "Redisson RLock";
			case "si-spin" -> "Spring Integration (spin)";
			case "si-pubsub" -> "Spring Integration (pub/sub)";
			case "raw" -> "raw Lettuce baseline";
			case "raw-pubsub" -> "raw Lettuce baseline (pub/sub wake-up)";
			case "raw-scripts" -> "the starter's scripts on the raw baseline";
			case "raw-scripts-pubsub" -> "the starter's scripts on the raw baseline (pub/sub wake-up)";
			default -> id;
		};
	}

	static LettuceConnectionFactory connectionFactory(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * This project's {@code RedisLockTemplate}: watchdog-renewed, or with a fixed lease.
	 */
	static final class Starter implements Column {

		private final LettuceConnectionFactory factory;

		final DefaultRedisLockTemplate template;

		private final boolean fixed;

		Starter(int port, boolean fixed, Duration leaseTime) {
			this.factory = connectionFactory(port);
			this.template = new DefaultRedisLockTemplate(this.factory, LockSettings.DEFAULTS.withLeaseTime(leaseTime));
			this.fixed = fixed;
		}

		@Override
		public String title() {
			return Columns.title(this.fixed ? "starter-fixed" : "starter-watchdog");
		}

		@Override
		public Locker locker(String key) {
			return locker(this.template.getLock(key));
		}

		@Override
		public Locker readLocker(String key) {
			return locker(this.template.getReadWriteLock(key).readLock());
		}

		private Locker locker(RedisLock lock) {
			Duration lease = this.fixed ? Duration.ofSeconds(30) : null;
			return Locker.of(() -> {
				if (!lock.tryLock(Duration.ofMinutes(5), lease)) {
					throw new IllegalStateException("not acquired in 5 minutes");
				}
			}, lock::unlock);
		}

		@Override
		public void close() {
			try {
				this.template.destroy();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			this.factory.destroy();
		}

	}

	/**
	 * RedLock over independent servers, with this project's {@code RedLockTemplate}.
	 */
	static final class StarterRedLock implements Column {

		private final List<LettuceConnectionFactory> factories;

		private final RedLockTemplate template;

		StarterRedLock(List<Integer> ports) {
			this.factories = ports.stream().map(Columns::connectionFactory).toList();
			this.template = new RedLockTemplate(List.copyOf(this.factories), LockSettings.DEFAULTS,
					RedLockSettings.DEFAULTS);
		}

		@Override
		public String title() {
			return "starter RedLock (" + this.factories.size() + " servers)";
		}

		@Override
		public Locker locker(String key) {
			RedisLock lock = this.template.getLock(key);
			return Locker.of(lock::lock, lock::unlock);
		}

		@Override
		public void close() {
			this.template.destroy();
			this.factories.forEach(LettuceConnectionFactory::destroy);
		}

	}

	/**
	 * Redisson's {@code RLock}, default single-server configuration.
	 */
	static final class Redis implements Column {

		final RedissonClient client;

		Redis(int port, long watchdogTimeoutMillis) {
			Config config = new Config();
			config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
			config.setLockWatchdogTimeout(watchdogTimeoutMillis);
			this.client = Redisson.create(config);
		}

		@Override
		public String title() {
			return Columns.title("redisson");
		}

		@Override
		public Locker locker(String key) {
			return locker(this.client.getLock(key));
		}

		@Override
		public Locker readLocker(String key) {
			return locker(this.client.getReadWriteLock(key).readLock());
		}

		private static Locker locker(RLock lock) {
			return Locker.of(lock::lock, lock::unlock);
		}

		@Override
		public void close() {
			this.client.shutdown();
		}

	}

	/**
	 * Spring Integration's {@code RedisLockRegistry}.
	 */
	static final class Integration implements Column {

		private final LettuceConnectionFactory factory;

		private final RedisLockRegistry registry;

		private final RedisLockType type;

		Integration(int port, RedisLockType type) {
			this.factory = connectionFactory(port);
			this.registry = new RedisLockRegistry(this.factory, "si-bench", 30_000);
			this.registry.setRedisLockType(type);
			this.type = type;
		}

		@Override
		public String title() {
			return Columns.title((this.type == RedisLockType.SPIN_LOCK) ? "si-spin" : "si-pubsub");
		}

		@Override
		public Locker locker(String key) {
			Lock lock = this.registry.obtain(key);
			return Locker.of(lock::lock, lock::unlock);
		}

		@Override
		public void close() {
			this.registry.destroy();
			this.factory.destroy();
		}

	}

	/**
	 * The floor: {@code SET key token NX PX} to acquire, one compare-and-delete script to
	 * release, on one shared Lettuce connection. With pub/sub, the release script also
	 * publishes the key and waiters park until a message for their key (or the holder's
	 * remaining lease); without, it never waits (uncontended use only).
	 */
	static final class Raw implements Column {

		private static final String SCRIPTS = "/io/github/redislock/internal/lock/";

		private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
				+ "redis.call('del', KEYS[1]) return 1 end return 0";

		private static final String RELEASE_AND_PUBLISH = "if redis.call('get', KEYS[1]) == ARGV[1] then "
				+ "redis.call('del', KEYS[1]) redis.call('publish', ARGV[2], KEYS[1]) return 1 end return 0";

		private static final String CHANNEL = "raw-bench:released";

		private static final AtomicLong TOKENS = new AtomicLong();

		private final RedisClient client;

		private final StatefulRedisConnection<String, String> connection;

		private final StatefulRedisPubSubConnection<String, String> pubSub;

		private final RedisCommands<String, String> redis;

		private final String releaseSha;

		private final boolean publish;

		private final String acquireSha;

		private final Map<String, Signal> signals = new ConcurrentHashMap<>();

		Raw(int port, boolean publish, boolean scripts) {
			this.client = RedisClient.create(RedisURI.create("127.0.0.1", port));
			this.connection = this.client.connect();
			this.redis = this.connection.sync();
			this.publish = publish;
			if (scripts) {
				// The engine's own texts, as it loads them (release behind
				// release-common).
				this.acquireSha = this.redis.scriptLoad(script("acquire.lua"));
				this.releaseSha = this.redis.scriptLoad(script("release-common.lua") + "\n" + script("release.lua"));
			}
			else {
				this.acquireSha = null;
				this.releaseSha = this.redis.scriptLoad(publish ? RELEASE_AND_PUBLISH : RELEASE);
			}
			if (publish) {
				this.pubSub = this.client.connectPubSub();
				this.pubSub.addListener(new RedisPubSubAdapter<>() {

					@Override
					public void message(String channel, String key) {
						signal(key).bump();
					}

				});
				this.pubSub.sync().subscribe(CHANNEL);
			}
			else {
				this.pubSub = null;
			}
		}

		private static String script(String name) {
			try (java.io.InputStream in = Raw.class.getResourceAsStream(SCRIPTS + name)) {
				if (in == null) {
					throw new IllegalStateException("No script " + name + " on the class path");
				}
				return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		}

		private Signal signal(String key) {
			return this.signals.computeIfAbsent(key, (name) -> new Signal());
		}

		@Override
		public String title() {
			return Columns.title((this.acquireSha != null ? "raw-scripts" : "raw") + (this.publish ? "-pubsub" : ""));
		}

		@Override
		public Locker locker(String key) {
			Signal signal = signal(key);
			String owner = Long.toString(TOKENS.incrementAndGet()) + ":";
			return new Locker() {

				private long holds;

				private String token;

				private long fencingToken;

				@Override
				public void lock() {
					if (Raw.this.acquireSha != null) {
						lockByScript();
						return;
					}
					String candidate = owner + (++this.holds);
					while (true) {
						long version = signal.version();
						if ("OK".equals(Raw.this.redis.set(key, candidate, SetArgs.Builder.nx().px(30_000)))) {
							this.token = candidate;
							return;
						}
						if (!Raw.this.publish) {
							throw new IllegalStateException("the raw baseline without pub/sub does not wait");
						}
						long ttl = Raw.this.redis.pttl(key);
						signal.await(version, Math.max(1, ttl));
					}
				}

				/**
				 * The engine's acquire script with the arguments it sends for a 30 s
				 * lease (retention 60 s); a failed attempt gives the holder's remaining
				 * lease, which bounds the wait for a release message.
				 */
				private void lockByScript() {
					while (true) {
						long version = signal.version();
						Long result = Raw.this.redis.evalsha(Raw.this.acquireSha, ScriptOutputType.INTEGER,
								new String[] { key }, owner, "30000", "60000", Raw.this.publish ? "1" : "0", "0");
						if (result != null && result > 0) {
							this.fencingToken = result;
							return;
						}
						if (!Raw.this.publish) {
							throw new IllegalStateException("the raw baseline without pub/sub does not wait");
						}
						signal.await(version, Math.max(1, (result == null) ? 1 : -result));
					}
				}

				@Override
				public void unlock() {
					Long released = (Raw.this.acquireSha != null)
							? Raw.this.redis.evalsha(Raw.this.releaseSha, ScriptOutputType.INTEGER,
									new String[] { key }, owner, CHANNEL, key, Long.toString(this.fencingToken),
									"60000", "0", "0")
							: Raw.this.redis.evalsha(Raw.this.releaseSha, ScriptOutputType.INTEGER,
									new String[] { key }, this.token, CHANNEL);
					if (released == null || released != 1) {
						throw new IllegalStateException("raw lock " + key + " was lost");
					}
				}

			};
		}

		@Override
		public void close() {
			if (this.pubSub != null) {
				this.pubSub.close();
			}
			this.connection.close();
			this.client.shutdown();
		}

		/**
		 * Release messages of one key: a version that waiters wait to change.
		 */
		static final class Signal {

			private long version;

			synchronized long version() {
				return this.version;
			}

			synchronized void bump() {
				this.version++;
				notifyAll();
			}

			synchronized void await(long seen, long maxMillis) {
				long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
				try {
					while (this.version == seen) {
						long left = deadline - System.nanoTime();
						if (left <= 0) {
							return;
						}
						TimeUnit.NANOSECONDS.timedWait(this, left);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}

		}

	}

}
