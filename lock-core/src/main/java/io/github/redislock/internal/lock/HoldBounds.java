package io.github.redislock.internal.lock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How long a hold stays at least, and at most: see
 * {@link io.github.redislock.core.RedisLock#withHoldAtLeast RedisLock.withHoldAtLeast}
 * and {@link io.github.redislock.core.RedisLock#withMaxHold RedisLock.withMaxHold}.
 *
 * @param holdAtLeastMillis after the last unlock, the lock stays taken until this long
 * after it was acquired (0: released at once)
 * @param maxHoldMillis the watchdog stops renewing after this long (0: no limit)
 */
record HoldBounds(long holdAtLeastMillis, long maxHoldMillis) {

	static final HoldBounds NONE = new HoldBounds(0, 0);

	static HoldBounds of(@Nullable Duration maxHold) {
		return (maxHold != null) ? new HoldBounds(0, maxHold.toMillis()) : NONE;
	}

	HoldBounds withHoldAtLeast(long millis) {
		return new HoldBounds(millis, this.maxHoldMillis);
	}

	HoldBounds withMaxHold(long millis) {
		return new HoldBounds(this.holdAtLeastMillis, millis);
	}

}
