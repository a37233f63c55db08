package io.github.redislock.internal.lock;

import io.github.redislock.internal.HashTags;
import io.github.redislock.support.Printable;

import org.springframework.util.Assert;

/**
 * Redis key layout of the locks. For a lock named {@code N} under the key prefix
 * {@code P}:
 * <ul>
 * <li>{@code P:{N}} — string {@code token:until:flags:atleast:owner}: the last fencing
 * token issued, the hold's deadline in Redis server milliseconds ({@code 0} once
 * released), flags ({@code w} someone waits, {@code k} released but kept for its
 * hold-at-least: never renewed again, {@code f} extended to a lease of its holder's own:
 * never renewed by the watchdog again), the hold-at-least deadline its last extension
 * recorded (server milliseconds, or empty) and the holder's owner id (instance id, thread
 * id and acquisition number). The hold ends at its deadline; the key outlives it by the
 * fencing retention, keeping the last token ({@code acquire.lua},
 * {@code docs/DESIGN.md});</li>
 * <li>channel {@code P:{N}:released} — carries the releasing instance's id and the lock
 * key on each release that someone waits for (sharded on a Redis Cluster: the lock's
 * slot); instances subscribe to it while they wait for the lock;</li>
 * <li>{@code P:instance:ID} — string: process id, host and application name (one line
 * each) of the running template with instance id {@code ID} (the first part of its owner
 * ids); expires unless refreshed.</li>
 * </ul>
 * A read-write lock named {@code N} uses {@code P:{N}:write} (hash: {@code owner},
 * {@code token}, and the exclusive lock's {@code kept}, {@code fixed}, {@code atleast};
 * expires with the writer's lease), {@code P:{N}:read} (sorted set: reader owner id →
 * that reader's lease deadline in Redis server milliseconds; a reader released but kept
 * for its hold-at-least as {@code owner:kept}), {@code P:{N}:read-atleast} (sorted set:
 * reader owner id → the hold-at-least deadline its last extension recorded, server
 * milliseconds), {@code P:{N}:queued} (owner of a waiting writer, for a lease),
 * {@code P:{N}:waiters} (present while someone waits) and {@code P:{N}:fence} (the last
 * fencing token, kept for a while after the lock is gone).
 * <p>
 * Every key of a name carries the hash tag {@code {N}}, so every script touches one
 * Cluster slot; braces and backslashes of the name are escaped in the tag
 * ({@link HashTags}).
 */
final class LockKeys {

	/**
	 * Longest lock name accepted; longer ones are refused rather than stored.
	 */
	static final int MAX_NAME_LENGTH = 1000;

	private static final String RELEASED = ":released";

	private final String prefix;

	private final String channelPattern;

	LockKeys(String prefix) {
		this.prefix = prefix;
		this.channelPattern = globEscaped(prefix) + ":*:released";
	}

	String lockKey(String name) {
		Assert.hasText(name, "Lock name must not be empty");
		if (name.length() > MAX_NAME_LENGTH) {
			throw new IllegalArgumentException(
					"Lock name is " + name.length() + " characters long, at most " + MAX_NAME_LENGTH + " are allowed: '"
							+ Printable.of(name.substring(0, 60)) + "...'; use shorter keys");
		}
		return this.prefix + ":" + HashTags.of(name);
	}

	/**
	 * The record of a lock template's instance ({@code P:instance:ID}, a string with
	 * process id, host and application name on three lines, expiring unless refreshed).
	 */
	String instanceKey(String instanceId) {
		return this.prefix + ":instance:" + instanceId;
	}

	String fenceKey(String lockKey) {
		return lockKey + ":fence";
	}

	ReadWriteKeys readWriteKeys(String name) {
		String base = lockKey(name);
		return new ReadWriteKeys(base + ":write", base + ":read", base + ":read-atleast", base + ":queued",
				base + ":waiters", fenceKey(base));
	}

	/**
	 * The keys of one read-write lock.
	 */
	record ReadWriteKeys(String write, String readers, String readersAtLeast, String queued, String waiters,
			String fence) {

	}

	SemaphoreKeys semaphoreKeys(String name) {
		String base = lockKey(name);
		return new SemaphoreKeys(base + ":permits", base + ":permits-waiters", fenceKey(base + ":permits"));
	}

	/**
	 * The keys of a semaphore, in one Cluster slot: its permits (owner id to lease
	 * deadline), the flag that someone waits, its fencing counter.
	 */
	record SemaphoreKeys(String permits, String waiters, String fence) {

	}

	/**
	 * The channel on which the releases of a lock are announced, in the lock's slot.
	 * @param signalKey the key waiters of the lock wait for: the lock hash, a read-write
	 * lock's write side, a semaphore's permits
	 */
	String releaseChannel(String signalKey) {
		return signalKey + RELEASED;
	}

	/**
	 * Return the key whose waiters a release channel wakes (the inverse of
	 * {@link #releaseChannel}).
	 */
	String signalKeyOf(String releaseChannel) {
		return releaseChannel.endsWith(RELEASED)
				? releaseChannel.substring(0, releaseChannel.length() - RELEASED.length()) : releaseChannel;
	}

	/**
	 * A pattern that matches the release channel of every lock under this prefix.
	 */
	String releaseChannelPattern() {
		return this.channelPattern;
	}

	private static String globEscaped(String text) {
		StringBuilder escaped = new StringBuilder(text.length() + 8);
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

}
