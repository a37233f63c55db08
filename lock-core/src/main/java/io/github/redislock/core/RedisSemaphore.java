package io.github.redislock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A distributed semaphore: at most {@link #getPermits()} holders at once, across all
 * instances. Each permit is its own entry with its own lease (renewed by the watchdog
 * unless a fixed lease is given), so the permit of a holder that crashed comes back when
 * its lease ends, and a release frees only the releasing holder's permit.
 * <pre class="code">
 * try (SemaphorePermit permit = payments.tryAcquire(Duration.ofSeconds(2), null).orElseThrow()) {
 *     provider.charge(order);
 * }
 * </pre>
 * <p>
 * The permit count is the caller's: when callers disagree (a redeploy changed it), each
 * acquisition is decided by its own caller's count against the permits held now.
 *
 * @since 0.1.0
 */
public interface RedisSemaphore {

	/**
	 * Take one permit, waiting up to {@code waitTime}.
	 * @param waitTime how long to wait for a permit
	 * @param leaseTime fixed lease, or {@code null} for a watchdog-renewed lease
	 * @return the permit, or empty when none was free within {@code waitTime} (or the
	 * waiting thread was interrupted, whose interrupt status is then set)
	 * @throws LockAcquisitionException when Redis could not be reached within
	 * {@code waitTime}
	 */
	Optional<SemaphorePermit> tryAcquire(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Take one permit without blocking a thread while waiting.
	 * @param waitTime how long to wait for a permit
	 * @param leaseTime fixed lease, or {@code null} for a watchdog-renewed lease
	 * @return a future of the permit, or of empty when none was free within
	 * {@code waitTime}; it completes on one of the template's callback threads, and fails
	 * with {@link LockAcquisitionException} when Redis could not be reached within
	 * {@code waitTime}. Cancelling it gives the acquisition up: a permit that comes after
	 * goes back at once
	 * @throws UnsupportedOperationException when the semaphore takes no permits without
	 * blocking (the default)
	 * @since 0.1.0
	 */
	default CompletableFuture<Optional<SemaphorePermit>> tryAcquireAsync(Duration waitTime,
			@Nullable Duration leaseTime) {
		throw new UnsupportedOperationException("Semaphore '" + getName() + "' (" + getClass().getName()
				+ ") takes no permits without blocking; use tryAcquire");
	}

	/**
	 * Return this semaphore measured under a declared name, as
	 * {@link RedisLock#withMetricName} does for a lock. The default returns this
	 * semaphore unchanged.
	 * @param metricName the name to measure under, never a per-call key
	 * @param skipsWhenNotAcquired whether the caller skips its work when no permit is
	 * free within its wait time
	 * @return a semaphore of the same name and permits measured under {@code metricName}
	 * @since 0.1.0
	 */
	default RedisSemaphore withMetricName(String metricName, boolean skipsWhenNotAcquired) {
		return this;
	}

	/**
	 * Return how many permits are free now (by this caller's count).
	 * @return the free permits, never negative
	 */
	int availablePermits();

	/**
	 * Return the number of permits this caller counts with.
	 * @return the permits
	 */
	int getPermits();

	/**
	 * Return the semaphore's full name.
	 * @return the name
	 */
	String getName();

}
