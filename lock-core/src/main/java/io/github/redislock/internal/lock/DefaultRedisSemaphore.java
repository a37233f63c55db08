package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisSemaphore} on the engine's asynchronous holds: a blocking
 * {@link #tryAcquire} waits for the asynchronous acquisition, so a waiting permit costs
 * no thread beyond the caller's own.
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
		CompletableFuture<@Nullable AsyncHold> acquisition = this.template.acquireAsync(this.lock, waitTime, leaseTime);
		try {
			return Optional.ofNullable(DefaultRedisLockTemplate.awaitHold(acquisition)).map(Permit::new);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
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

	/**
	 * A permit: an asynchronous hold given back by {@link #close()}.
	 */
	private static final class Permit implements SemaphorePermit {

		private final AsyncHold hold;

		Permit(AsyncHold hold) {
			this.hold = hold;
		}

		@Override
		public void close() {
			try {
				this.hold.release().join();
			}
			catch (CompletionException ex) {
				throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
			}
		}

		@Override
		public boolean isHeld() {
			return this.hold.isHeld();
		}

		@Override
		public long fencingToken() {
			return this.hold.fencingToken();
		}

		@Override
		public String toString() {
			return "SemaphorePermit of '" + this.hold.lockName() + "' (token " + this.hold.fencingToken() + ")";
		}

	}

}
