package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisSemaphore} on the engine's asynchronous holds: a blocking
 * {@link #tryAcquire} waits for the asynchronous acquisition, so a waiting permit costs
 * no thread beyond the caller's own; one that stops waiting returns only once nothing is
 * left taken for it. Its permits are {@link AsyncPermit}s.
 */
final class DefaultRedisSemaphore implements RedisSemaphore {

	private final DefaultRedisLockTemplate template;

	private final SemaphoreLock lock;

	DefaultRedisSemaphore(DefaultRedisLockTemplate template, SemaphoreLock lock) {
		this.template = template;
		this.lock = lock;
	}

	SemaphoreLock lock() {
		return this.lock;
	}

	@Override
	public Optional<SemaphorePermit> tryAcquire(Duration waitTime, @Nullable Duration leaseTime) {
		try {
			return this.template.awaitHold(this.lock, waitTime, leaseTime).map(SemaphorePermit.class::cast);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
	}

	@Override
	@SuppressWarnings("unchecked")
	public CompletableFuture<Optional<SemaphorePermit>> tryAcquireAsync(Duration waitTime,
			@Nullable Duration leaseTime) {
		// The acquisition's own future, so that cancelling it gives the acquisition up;
		// the holds of a semaphore's lock are permits (AsyncHold.of).
		return (CompletableFuture<Optional<SemaphorePermit>>) (CompletableFuture<?>) this.template
			.acquireAsync(this.lock, waitTime, leaseTime);
	}

	@Override
	public RedisSemaphore withMetricName(String metricName, boolean skipsWhenNotAcquired) {
		return new DefaultRedisSemaphore(this.template,
				this.lock.copy(this.lock.bounds, LockMetricNames.Tag.declared(metricName, skipsWhenNotAcquired)));
	}

	@Override
	public int availablePermits() {
		return (int) Math.max(0, this.lock.permits() - this.lock.heldPermits());
	}

	@Override
	public int getPermits() {
		return this.lock.permits();
	}

	@Override
	public String getName() {
		return this.lock.getName();
	}

	@Override
	public String toString() {
		return "RedisSemaphore '" + this.lock.getName() + "' (" + this.lock.permits() + " permits)";
	}

}
