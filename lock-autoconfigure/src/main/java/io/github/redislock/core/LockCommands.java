package io.github.redislock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisClusterConnection;
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

	private final StringRedisTemplate redis;

	private final LockKeys keys;

	LockCommands(RedisConnectionFactory connectionFactory, LockKeys keys) {
		this.redis = new StringRedisTemplate(connectionFactory);
		this.keys = keys;
	}

	private static <T> RedisScript<T> script(String name, Class<T> resultType) {
		return RedisScript.of(new ClassPathResource(name, LockCommands.class), resultType);
	}

	/**
	 * Try once to take the lock.
	 * @return the fencing token when acquired, otherwise minus the holder's remaining
	 * lease in milliseconds
	 */
	long acquire(String lockKey, String owner, long leaseMillis, boolean willWait, boolean othersWait) {
		Long result = this.redis.execute(ACQUIRE, List.of(lockKey, this.keys.fenceKey(lockKey)), owner,
				Long.toString(leaseMillis), Long.toString(fenceRetention(leaseMillis)), flag(willWait),
				flag(othersWait));
		return nonNull(result, "acquire");
	}

	/**
	 * Release the lock if {@code owner} holds it; {@code message} goes to the release
	 * channel when someone waits.
	 * @return 1 released, 0 no lock there, -1 held by another owner (left untouched)
	 */
	long release(String lockKey, String owner, String message) {
		return nonNull(this.redis.execute(RELEASE, List.of(lockKey), owner, this.keys.channel(), message), "release");
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

	private static long nonNull(Long result, String script) {
		if (result == null) {
			throw new IllegalStateException("Redis returned no result for the " + script
					+ " script; is the connection in a pipeline or transaction?");
		}
		return result;
	}

}
