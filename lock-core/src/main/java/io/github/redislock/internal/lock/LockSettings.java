package io.github.redislock.internal.lock;

import java.time.Duration;

import io.github.redislock.core.OnLockLost;
import io.github.redislock.internal.HashTags;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Settings of a {@link DefaultRedisLockTemplate}.
 *
 * @param keyPrefix prefix of every Redis key and channel the locks use
 * @param leaseTime lease of locks taken without a fixed lease; the watchdog renews them
 * every third of it
 * @param onLockLost what releasing a lost lock does
 * @param minReplicasAcked replicas that must confirm an acquisition (with WAIT) before it
 * counts; 0: none
 * @param replicaAckTimeout how long to wait for those confirmations
 * @param maxHold how long the watchdog renews a hold at most, unless the lock says
 * otherwise ({@link io.github.redislock.core.RedisLock#withMaxHold
 * RedisLock.withMaxHold}); {@code null}: no limit
 * @since 0.1.0
 */
public record LockSettings(String keyPrefix, Duration leaseTime, OnLockLost onLockLost, int minReplicasAcked,
		Duration replicaAckTimeout, @Nullable Duration maxHold) {

	/**
	 * Defaults: prefix {@code redislock}, 30 second lease, throw on lost locks.
	 */
	public static final LockSettings DEFAULTS = new LockSettings("redislock", Duration.ofSeconds(30), OnLockLost.THROW);

	public LockSettings(String keyPrefix, Duration leaseTime, OnLockLost onLockLost) {
		this(keyPrefix, leaseTime, onLockLost, 0, Duration.ofMillis(100));
	}

	public LockSettings(String keyPrefix, Duration leaseTime, OnLockLost onLockLost, int minReplicasAcked,
			Duration replicaAckTimeout) {
		this(keyPrefix, leaseTime, onLockLost, minReplicasAcked, replicaAckTimeout, null);
	}

	public LockSettings {
		HashTags.checkPrefix(keyPrefix);
		Assert.notNull(leaseTime, "'leaseTime' must not be null");
		Assert.isTrue(leaseTime.toMillis() >= 30, () -> "'leaseTime' must be at least 30ms: " + leaseTime);
		Assert.notNull(onLockLost, "'onLockLost' must not be null");
		Assert.isTrue(minReplicasAcked >= 0, "'minReplicasAcked' must not be negative");
		Assert.isTrue(replicaAckTimeout.toMillis() > 0, "'replicaAckTimeout' must be positive");
		Assert.isTrue(maxHold == null || maxHold.compareTo(leaseTime) >= 0,
				() -> "'maxHold' (" + maxHold + ") must not be shorter than 'leaseTime' (" + leaseTime + ")");
	}

	public LockSettings withLeaseTime(Duration leaseTime) {
		return new LockSettings(this.keyPrefix, leaseTime, this.onLockLost, this.minReplicasAcked,
				this.replicaAckTimeout, this.maxHold);
	}

	public LockSettings withOnLockLost(OnLockLost onLockLost) {
		return new LockSettings(this.keyPrefix, this.leaseTime, onLockLost, this.minReplicasAcked,
				this.replicaAckTimeout, this.maxHold);
	}

	public LockSettings withReplicaAcknowledgement(int minReplicasAcked, Duration replicaAckTimeout) {
		return new LockSettings(this.keyPrefix, this.leaseTime, this.onLockLost, minReplicasAcked, replicaAckTimeout,
				this.maxHold);
	}

	public LockSettings withMaxHold(@Nullable Duration maxHold) {
		return new LockSettings(this.keyPrefix, this.leaseTime, this.onLockLost, this.minReplicasAcked,
				this.replicaAckTimeout, maxHold);
	}

}
