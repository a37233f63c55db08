package io.github.redislock.internal.lock;

import io.github.redislock.core.LockLostEvent;

/**
 * Told when a lock held by this instance is lost; the auto-configuration publishes each
 * one as a {@link LockLostEvent}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockLostListener {

	/**
	 * Called once per lost hold, from the thread that found it lost (the watchdog, or the
	 * releasing thread).
	 * @param event the lost lock
	 */
	void lockLost(LockLostEvent event);

}
