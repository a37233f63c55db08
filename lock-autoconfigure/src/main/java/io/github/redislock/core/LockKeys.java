package io.github.redislock.core;

import org.springframework.util.Assert;

/**
 * Redis key layout of the locks. For a lock named {@code N} under the key prefix
 * {@code P}:
 * <ul>
 * <li>{@code P:{N}} — hash: {@code owner} (instance id and thread id), {@code token}
 * (fencing token), {@code waiters} (present when someone waits); it expires with the
 * lease;</li>
 * <li>{@code P:{N}:fence} — the last fencing token issued, kept for a while after the
 * lock is gone;</li>
 * <li>channel {@code P:released} — carries the lock key on each release that someone
 * waits for.</li>
 * </ul>
 * Both keys carry the hash tag {@code {N}}, so every script touches one Cluster slot.
 */
final class LockKeys {

	/**
	 * Longest lock name accepted; longer ones are refused rather than stored.
	 */
	static final int MAX_NAME_LENGTH = 1000;

	private final String prefix;

	private final String channel;

	LockKeys(String prefix) {
		this.prefix = prefix;
		this.channel = prefix + ":released";
	}

	String lockKey(String name) {
		Assert.hasText(name, "Lock name must not be empty");
		if (name.length() > MAX_NAME_LENGTH) {
			throw new IllegalArgumentException("Lock name is " + name.length() + " characters long, at most "
					+ MAX_NAME_LENGTH + " are allowed: '" + name.substring(0, 60) + "...'; use shorter keys");
		}
		return this.prefix + ":{" + name + "}";
	}

	String fenceKey(String lockKey) {
		return lockKey + ":fence";
	}

	String channel() {
		return this.channel;
	}

}
