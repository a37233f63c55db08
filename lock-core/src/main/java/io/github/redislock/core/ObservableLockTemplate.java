package io.github.redislock.core;

import java.util.List;

/**
 * A lock template whose locks can be watched: what the starter's metrics
 * ({@code redislock.*} meters) and the {@code redislock} actuator endpoint use.
 * {@link io.github.redislock.internal.lock.DefaultRedisLockTemplate
 * DefaultRedisLockTemplate} and {@link io.github.redislock.internal.lock.RedLockTemplate
 * RedLockTemplate} implement it; a {@link RedisLockTemplate} bean of the application's
 * own keeps the metrics and the endpoint by implementing it too (for example by
 * delegating to a {@code DefaultRedisLockTemplate} it wraps).
 *
 * @since 0.1.0
 */
public interface ObservableLockTemplate {

	/**
	 * Set the observer told what the locks do.
	 * @param observer the observer
	 */
	void setLockObserver(LockObserver observer);

	/**
	 * Return the locks the threads of this instance hold now.
	 * @return the holds, longest held first
	 */
	List<HeldLock> getHeldLocks();

	/**
	 * Return how many lock holds threads of this instance have now.
	 * @return the number of holds
	 */
	int getActiveHoldCount();

}
