package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.List;

import io.github.redislock.internal.lock.LockKeys.ReadWriteKeys;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Redis side of the read-write locks; each state change is one Lua script.
 */
final class ReadWriteLockCommands {

	private static final RedisScript<Long> ACQUIRE = script("acquire-rw.lua");

	private static final RedisScript<Long> RELEASE = LockCommands.releaseScript("release-rw.lua");

	private static final RedisScript<Long> WRITER_GAVE_UP = script("writer-gave-up.lua");

	private static final RedisScript<Long> READERS_LEASE = script("readers-lease.lua");

	private final StringRedisTemplate redis;

	private final LockCommands commands;

	ReadWriteLockCommands(LockCommands commands) {
		this.commands = commands;
		this.redis = commands.redis();
	}

	private String channel(ReadWriteKeys keys) {
		return this.commands.keys().releaseChannel(keys.write());
	}

	private static RedisScript<Long> script(String name) {
		return LockCommands.script(name, Long.class);
	}

	/**
	 * Try once to take one side.
	 * @return the fencing token when acquired, otherwise minus the ms after which the
	 * obstacle's lease runs out
	 */
	long acquire(ReadWriteKeys keys, boolean write, String owner, long leaseMillis, boolean willWait,
			boolean othersWait, String releaseMessage) {
		return this.commands
			.acquiring(acquireCall(keys, write, owner, leaseMillis, willWait, othersWait, releaseMessage));
	}

	/**
	 * The script call of {@link #acquire}.
	 */
	LockCommands.ScriptCall acquireCall(ReadWriteKeys keys, boolean write, String owner, long leaseMillis,
			boolean willWait, boolean othersWait, String releaseMessage) {
		LockCommands.ScriptCall undo = releaseCall(keys, write, owner, 0, releaseMessage, 0);
		return new LockCommands.ScriptCall(ACQUIRE,
				List.of(keys.write(), keys.readers(), keys.queued(), keys.waiters(), keys.fence()),
				List.of(owner, Long.toString(leaseMillis), Long.toString(LockCommands.fenceRetention(leaseMillis)),
						LockCommands.flag(willWait), LockCommands.flag(othersWait), write ? "w" : "r",
						owner.substring(0, owner.lastIndexOf(':') + 1)),
				"acquire", () -> this.commands.call(undo), undo);
	}

	/**
	 * @param holdAtLeastMillis keep the hold until this long after the token was issued
	 * (0: release now)
	 * @return 1 released (or kept for its hold-at-least), 0 the hold was gone, -1 another
	 * owner holds the write side
	 */
	long release(ReadWriteKeys keys, boolean write, String owner, long token, String message, long holdAtLeastMillis) {
		return this.commands.call(releaseCall(keys, write, owner, token, message, holdAtLeastMillis));
	}

	/**
	 * The script call of {@link #release}.
	 */
	LockCommands.ScriptCall releaseCall(ReadWriteKeys keys, boolean write, String owner, long token, String message,
			long holdAtLeastMillis) {
		return new LockCommands.ScriptCall(RELEASE,
				List.of(keys.write(), keys.readers(), keys.waiters(), keys.fence(), keys.readersAtLeast()),
				List.of(owner, channel(keys), message, write ? "w" : "r", Long.toString(token),
						Long.toString(LockCommands.fenceRetention(0)), Long.toString(holdAtLeastMillis),
						this.commands.shardedFlag()),
				"release");
	}

	/**
	 * The script call that extends one side's hold to a new fixed lease if {@code owner}
	 * holds it, recording a hold-at-least counted from now.
	 * @return (of the call) 1 extended, 0 the hold was gone, -1 another owner holds the
	 * write side
	 */
	LockCommands.ScriptCall extendCall(ReadWriteKeys keys, boolean write, String owner, long leaseMillis,
			long holdAtLeastMillis) {
		return write ? this.commands.extendCall(keys.write(), owner, leaseMillis, holdAtLeastMillis) : this.commands
			.extendMemberCall(keys.readers(), keys.readersAtLeast(), owner, leaseMillis, holdAtLeastMillis);
	}

	void writerGaveUp(ReadWriteKeys keys, String owner, String message) {
		this.redis.execute(WRITER_GAVE_UP, List.of(keys.queued(), keys.waiters()), owner, channel(keys), message,
				this.commands.shardedFlag());
	}

	Duration readersLease(ReadWriteKeys keys) {
		return Duration.ofMillis(value(this.redis.execute(READERS_LEASE, List.of(keys.readers()))));
	}

	private static long value(Long result) {
		if (result == null) {
			throw new IllegalStateException(
					"Redis returned no result for a read-write lock script; is the connection in a pipeline or transaction?");
		}
		return result;
	}

}
