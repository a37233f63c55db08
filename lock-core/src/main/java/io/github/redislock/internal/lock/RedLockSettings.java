package io.github.redislock.internal.lock;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * Settings of the RedLock algorithm.
 *
 * @param nodeTimeout how long one node may take to answer one attempt; far below the
 * lease
 * @param retryDelay mean pause between two attempts (randomised between half and one and
 * a half times it)
 * @param clockDriftFactor share of the lease assumed lost to clock drift between nodes
 * @since 0.1.0
 */
public record RedLockSettings(Duration nodeTimeout, Duration retryDelay, double clockDriftFactor) {

	/**
	 * Defaults: 100ms per node, 200ms between attempts, 1% drift.
	 */
	public static final RedLockSettings DEFAULTS = new RedLockSettings(Duration.ofMillis(100), Duration.ofMillis(200),
			0.01);

	public RedLockSettings {
		Assert.isTrue(nodeTimeout.toMillis() > 0, "'nodeTimeout' must be positive");
		Assert.isTrue(retryDelay.toMillis() > 0, "'retryDelay' must be positive");
		Assert.isTrue(clockDriftFactor >= 0 && clockDriftFactor < 0.5, "'clockDriftFactor' must be in [0, 0.5)");
	}

	/**
	 * Return the time that must be deducted from a lease for clock drift.
	 */
	long driftMillis(long leaseMillis) {
		return (long) (leaseMillis * this.clockDriftFactor) + 2;
	}

}
