package io.github.redislock.internal.lock;

import java.time.Duration;

import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.support.Printable;

import org.springframework.util.Assert;

/**
 * A semaphore permit: an asynchronous hold of a {@link SemaphoreLock}, given back by
 * {@link #close()} as by {@link #release()}.
 */
final class AsyncPermit extends AsyncHold implements SemaphorePermit {

	AsyncPermit(ThreadOwnedLock lock, LockHold hold) {
		super(lock, hold);
	}

	/**
	 * Extend the permit as {@link #extend(Duration)} does: a permit has no hold-at-least.
	 * @throws UnsupportedOperationException for a positive {@code holdAtLeast}
	 */
	@Override
	public boolean extend(Duration lease, Duration holdAtLeast) {
		Assert.notNull(holdAtLeast, "'holdAtLeast' must not be null");
		if (!holdAtLeast.isZero()) {
			throw new UnsupportedOperationException("A permit of semaphore '" + Printable.of(getName())
					+ "' has no minimum hold: extend it with extend(lease)");
		}
		return extend(lease);
	}

}
