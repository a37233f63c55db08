package io.github.redislock.test;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.util.Assert;

/**
 * What an exclusive lock's key says, read the way the scripts read it: a string
 * {@code token:until:flags:atleast:owner} whose hold ends at {@code until} (this server's
 * clock, ms; 0 once released), while the key itself outlives the hold to keep the last
 * fencing token. Tests ask these questions rather than whether the key exists or what its
 * TTL is, which no longer say whether the lock is held.
 */
public final class LockRecords {

	private static final Pattern RECORD = Pattern.compile("(\\d+):(\\d+):([a-z]*):(\\d*):(.*)", Pattern.DOTALL);

	private LockRecords() {
	}

	/**
	 * The lock's record, if its key is there (held, released or expired).
	 */
	public static Optional<LockRecord> read(RedisOperations<String, String> redis, String lockKey) {
		// Plain GET and TIME, not a script: tests count the scripts the client sends.
		String value = redis.opsForValue().get(lockKey);
		if (value == null) {
			return Optional.empty();
		}
		Long now = redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		Matcher fields = RECORD.matcher(value);
		Assert.state(now != null && fields.matches(), () -> "not a lock record: " + value);
		return Optional.of(new LockRecord(Long.parseLong(fields.group(1)), Long.parseLong(fields.group(2)) - now,
				fields.group(3), fields.group(4), fields.group(5)));
	}

	/**
	 * Whether someone holds the lock now (a hold kept for its hold-at-least included).
	 */
	public static boolean isHeld(RedisOperations<String, String> redis, String lockKey) {
		return read(redis, lockKey).map(LockRecord::held).orElse(false);
	}

	/**
	 * The milliseconds left of the current hold, or -2 when no one holds the lock (as
	 * {@code PTTL} answers for a missing key).
	 */
	public static long leaseLeftMillis(RedisOperations<String, String> redis, String lockKey) {
		return read(redis, lockKey).filter(LockRecord::held).map(LockRecord::leaseLeftMillis).orElse(-2L);
	}

	/**
	 * Whether the lock is held and flagged as waited for.
	 */
	public static boolean hasWaiters(RedisOperations<String, String> redis, String lockKey) {
		return read(redis, lockKey).filter(LockRecord::held).map((found) -> found.flags().contains("w")).orElse(false);
	}

	/**
	 * The fencing token of the current hold, or {@code null} when no one holds it.
	 */
	public static @Nullable String token(RedisOperations<String, String> redis, String lockKey) {
		return read(redis, lockKey).filter(LockRecord::held).map((found) -> Long.toString(found.token())).orElse(null);
	}

	/**
	 * An exclusive lock's record.
	 *
	 * @param token the last fencing token issued
	 * @param leaseLeftMillis what is left of the hold (0 or less: over, or released)
	 * @param flags {@code w} someone waits, {@code k} kept for its hold-at-least after
	 * its release, {@code f} its lease fixed by an extension
	 * @param atLeast an extension's hold-at-least deadline (server ms), or empty
	 * @param owner the holder's owner id (the last holder's once released)
	 */
	public record LockRecord(long token, long leaseLeftMillis, String flags, String atLeast, String owner) {

		/** Whether the hold is still on. */
		public boolean held() {
			return this.leaseLeftMillis > 0;
		}

	}

}
