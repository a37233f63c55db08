package io.github.redislock.core;

import java.io.IOException;
import java.io.UncheckedIOException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.api.async.BaseRedisAsyncCommands;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.io.ClassPathResource;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Redis side of the exclusive locks: each state change is one Lua script, run by
 * EVALSHA (falling back to EVAL once per server when the script is not cached yet).
 */
final class LockCommands {

	private static final RedisScript<Long> ACQUIRE = script("acquire.lua", Long.class);

	private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> RENEW = script("renew.lua", List.class);

	private static final RedisScript<Long> FORCE_UNLOCK = script("force-unlock.lua", Long.class);

	/**
	 * The fencing counter outlives the lock by at least this, so that tokens increase
	 * even when the Redis clock steps back by less.
	 */
	private static final long MIN_FENCE_RETENTION_MS = Duration.ofMinutes(1).toMillis();

	/** Result of an acquisition that too few replicas confirmed (and that was undone). */
	static final long NOT_ACKNOWLEDGED = -1;

	private final StringRedisTemplate redis;

	private final LockKeys keys;

	private final RedisConnectionFactory connectionFactory;

	private final @Nullable LettuceScripts lettuce;

	private final int minReplicasAcked;

	private final long replicaAckTimeoutMillis;

	private volatile @Nullable ReplicaAckConnections replicaAckConnections;

	private volatile boolean replicaAckChecked;

	LockCommands(RedisConnectionFactory connectionFactory, LockKeys keys) {
		this(connectionFactory, keys, 0, 0);
	}

	LockCommands(RedisConnectionFactory connectionFactory, LockKeys keys, int minReplicasAcked,
			long replicaAckTimeoutMillis) {
		this.connectionFactory = connectionFactory;
		this.lettuce = LettuceScripts.of(connectionFactory);
		this.redis = new StringRedisTemplate(connectionFactory);
		this.keys = keys;
		this.minReplicasAcked = minReplicasAcked;
		this.replicaAckTimeoutMillis = replicaAckTimeoutMillis;
	}

	/**
	 * Load a script of this package once, as text: a script made from a resource would
	 * check the resource for changes on every call.
	 */
	static <T> RedisScript<T> script(String name, Class<T> resultType) {
		try {
			return RedisScript.of(
					new ClassPathResource(name, LockCommands.class).getContentAsString(StandardCharsets.UTF_8),
					resultType);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the script " + name, ex);
		}
	}

	/**
	 * Try once to take the lock.
	 * @param releaseMessage what the undo of an unacknowledged acquisition publishes, so
	 * that waiters of other instances know which lock was freed
	 * @return the fencing token when acquired, otherwise minus the holder's remaining
	 * lease in milliseconds
	 */
	long acquire(String lockKey, String owner, long leaseMillis, boolean willWait, boolean othersWait,
			String releaseMessage) {
		return acquiring(
				ACQUIRE, List.of(lockKey, this.keys.fenceKey(lockKey)), List.of(owner, Long.toString(leaseMillis),
						Long.toString(fenceRetention(leaseMillis)), flag(willWait), flag(othersWait)),
				() -> release(lockKey, owner, 0, releaseMessage));
	}

	/**
	 * Run an acquire script. With replica acknowledgement on, a successful acquisition is
	 * followed by WAIT on the same connection; when fewer replicas than required confirm
	 * it, {@code undo} releases it again and {@link #NOT_ACKNOWLEDGED} is returned.
	 */
	long acquiring(RedisScript<Long> script, List<String> keys, List<String> args, Runnable undo) {
		if (this.minReplicasAcked == 0) {
			return run(script, keys, args, "acquire");
		}
		ReplicaAckConnections dedicated = replicaAckConnections();
		long[] result = (dedicated != null)
				? dedicated.acquireAndWait(script, encode(keys, List.of()), encode(args, List.of()),
						this.minReplicasAcked, this.replicaAckTimeoutMillis)
				: this.redis.execute((RedisCallback<long[]>) (connection) -> {
					long token = nonNull(evalSha(connection, script, keys.size(), encode(keys, args)), "acquire");
					if (token <= 0) {
						return new long[] { token, 0 };
					}
					return new long[] { token, waitForReplicas(connection) };
				}, true);
		if (result != null && result[0] > 0 && result[1] < this.minReplicasAcked) {
			undo.run();
			return NOT_ACKNOWLEDGED;
		}
		return (result != null) ? result[0] : NOT_ACKNOWLEDGED;
	}

	/**
	 * Return the connections of their own that acknowledged acquisitions use, made on
	 * first use (the factory's client exists once it has started); {@code null} when the
	 * factory has none to offer (then its own connections serve, which for a Lettuce
	 * Cluster is the shared one).
	 */
	private @Nullable ReplicaAckConnections replicaAckConnections() {
		ReplicaAckConnections connections = this.replicaAckConnections;
		if (connections == null && !this.replicaAckChecked) {
			synchronized (this) {
				if (!this.replicaAckChecked) {
					this.replicaAckConnections = ReplicaAckConnections.of(this.connectionFactory);
					this.replicaAckChecked = true;
				}
				connections = this.replicaAckConnections;
			}
		}
		return connections;
	}

	/**
	 * Close the connections of acknowledged acquisitions.
	 */
	void close() {
		ReplicaAckConnections connections = this.replicaAckConnections;
		if (connections != null) {
			connections.close();
		}
	}

	/**
	 * WAIT covers the writes of one connection, so it runs on the connection that ran the
	 * acquire script.
	 * @return how many replicas confirmed
	 */
	private long waitForReplicas(RedisConnection connection) {
		Object nativeConnection = connection.getNativeConnection();
		if (!(nativeConnection instanceof BaseRedisAsyncCommands<?, ?> commands)) {
			throw new IllegalStateException("Replica acknowledgement (redislock.min-replicas-acked) needs a Lettuce"
					+ " connection factory, not " + nativeConnection.getClass().getName());
		}
		try {
			Long acked = commands.waitForReplication(this.minReplicasAcked, this.replicaAckTimeoutMillis)
				.get(this.replicaAckTimeoutMillis + 5000, TimeUnit.MILLISECONDS);
			return (acked != null) ? acked : 0;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return 0;
		}
		catch (ExecutionException | TimeoutException ex) {
			return 0;
		}
	}

	/**
	 * Run a script with an integer result: the hot path of acquire and release. On the
	 * shared native Lettuce connection when there is one, else on a connection of the
	 * factory; either way without the template's proxies and serializers.
	 */
	long run(RedisScript<Long> script, List<String> keys, List<String> args, String what) {
		LettuceScripts lettuce = this.lettuce;
		if (lettuce != null) {
			return nonNull(lettuce.run(script, encode(keys, List.of()), encode(args, List.of())), what);
		}
		byte[][] keysAndArgs = encode(keys, args);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return nonNull(evalSha(connection, script, keys.size(), keysAndArgs), what);
		}
	}

	private static byte[][] encode(List<String> keys, List<String> args) {
		byte[][] keysAndArgs = new byte[keys.size() + args.size()][];
		int i = 0;
		for (String value : keys) {
			keysAndArgs[i++] = value.getBytes(StandardCharsets.UTF_8);
		}
		for (String value : args) {
			keysAndArgs[i++] = value.getBytes(StandardCharsets.UTF_8);
		}
		return keysAndArgs;
	}

	private static @Nullable Long evalSha(RedisConnection connection, RedisScript<Long> script, int keyCount,
			byte[][] keysAndArgs) {
		try {
			return connection.scriptingCommands().evalSha(script.getSha1(), ReturnType.INTEGER, keyCount, keysAndArgs);
		}
		catch (RuntimeException ex) {
			String message = NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
			if (message == null || !message.contains("NOSCRIPT")) {
				throw ex;
			}
			return connection.scriptingCommands()
				.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), ReturnType.INTEGER, keyCount,
						keysAndArgs);
		}
	}

	/**
	 * Release the lock if {@code owner} holds it; {@code message} goes to the release
	 * channel when someone waits. With the hold's fencing token (0 when unknown), a run
	 * of this release that the client re-sends after a reconnect is recognised and
	 * answers 1 again.
	 * @return 1 released, 0 no lock there, -1 held by another owner (left untouched)
	 */
	long release(String lockKey, String owner, long token, String message) {
		return run(RELEASE, List.of(lockKey, this.keys.fenceKey(lockKey)),
				List.of(owner, this.keys.channel(), message, Long.toString(token), Long.toString(fenceRetention(0))),
				"release");
	}

	boolean forceUnlock(String lockKey, String message) {
		return nonNull(this.redis.execute(FORCE_UNLOCK, List.of(lockKey), this.keys.channel(), message),
				"force-unlock") == 1;
	}

	/**
	 * Renew many holds in one script (lock hashes, write sides, readers sets); all keys
	 * must lie in one Cluster slot.
	 * @return per key whether it was still ours and is renewed
	 */
	boolean[] renew(List<String> lockKeys, List<String> owners, long leaseMillis) {
		List<String> args = new ArrayList<>(owners.size() + 1);
		args.add(Long.toString(leaseMillis));
		args.addAll(owners);
		List<?> result = this.redis.execute(RENEW, lockKeys, args.toArray());
		boolean[] renewed = new boolean[lockKeys.size()];
		if (result != null) {
			for (int i = 0; i < renewed.length && i < result.size(); i++) {
				renewed[i] = ((Number) result.get(i)).longValue() == 1;
			}
		}
		return renewed;
	}

	boolean exists(String lockKey) {
		return Boolean.TRUE.equals(this.redis.hasKey(lockKey));
	}

	Duration remainingLease(String lockKey) {
		Long millis = this.redis.getExpire(lockKey, TimeUnit.MILLISECONDS);
		return (millis != null && millis > 0) ? Duration.ofMillis(millis) : Duration.ZERO;
	}

	boolean isCluster() {
		RedisCallback<Boolean> isCluster = (connection) -> connection instanceof RedisClusterConnection;
		return Boolean.TRUE.equals(this.redis.execute(isCluster));
	}

	static long fenceRetention(long leaseMillis) {
		return Math.max(2 * leaseMillis, MIN_FENCE_RETENTION_MS);
	}

	StringRedisTemplate redis() {
		return this.redis;
	}

	static String flag(boolean value) {
		return value ? "1" : "0";
	}

	private static long nonNull(@Nullable Long result, String script) {
		if (result == null) {
			throw new IllegalStateException("Redis returned no result for the " + script
					+ " script; is the connection in a pipeline or transaction?");
		}
		return result;
	}

}
