package io.github.redislock.internal.aop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * What one call of an annotated method acquires, taken from the application's
 * {@link RedisLockTemplate} through the public API only: a lock (exclusive, or a side of
 * a read-write lock) or a semaphore's permit, bounded and measured as the annotation
 * says.
 */
sealed interface LockTarget {

	/**
	 * Return what a call of {@code operation} acquires.
	 * @param operation the annotated method
	 * @param template the template to take it from
	 * @param lockName the call's full lock name
	 */
	static LockTarget of(LockOperation operation, RedisLockTemplate template, String lockName) {
		if (operation.type() == LockType.SEMAPHORE) {
			return new Permit(template.getSemaphore(lockName, operation.permits())
				.withMetricName(operation.name(), operation.skips()));
		}
		return new Lock(operation.bounded(operation.type().lock(template, lockName))
			.withMetricName(operation.name(), operation.skips()));
	}

	/**
	 * Acquire on the calling thread, for a method that returns its result synchronously.
	 * @return the hold, or {@code null} when the wait time ran out
	 * @throws InterruptedException when the calling thread was interrupted while it
	 * waited (its interrupt status stays set)
	 */
	@Nullable Held acquire(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException;

	/**
	 * Acquire without blocking a thread, for a method that returns an asynchronous
	 * result; cancelling the future gives the acquisition up.
	 */
	CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Return the exception for a call that did not acquire within its wait time.
	 */
	LockAcquisitionException notAcquired(Duration waitTime);

	/**
	 * A hold taken for a synchronous call.
	 */
	interface Held {

		/**
		 * Run the method under the hold, with the hold in {@code LockContext}.
		 */
		@Nullable Object proceed(MethodInvocation invocation) throws Throwable;

		/**
		 * Release the hold.
		 */
		void release();

		/**
		 * Release after the method failed: the method's failure is what the caller sees,
		 * a failing release is attached to it.
		 */
		default void releaseAfter(Throwable failure) {
			try {
				release();
			}
			catch (RuntimeException ex) {
				failure.addSuppressed(ex);
			}
		}

	}

	/**
	 * A lock: held by the calling thread for a synchronous call, by a handle otherwise.
	 */
	record Lock(RedisLock lock) implements LockTarget {

		@Override
		public @Nullable Held acquire(Duration waitTime, @Nullable Duration leaseTime) {
			if (!this.lock.tryLock(waitTime, leaseTime)) {
				return null;
			}
			return new Held() {

				@Override
				public @Nullable Object proceed(MethodInvocation invocation) throws Throwable {
					// The thread holds the lock: LockContext describes it already.
					return invocation.proceed();
				}

				@Override
				public void release() {
					Lock.this.lock.unlock();
				}

			};
		}

		@Override
		public CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
			return this.lock.tryAcquireAsync(waitTime, leaseTime);
		}

		@Override
		public LockAcquisitionException notAcquired(Duration waitTime) {
			return this.lock.acquisitionFailure(waitTime);
		}

	}

	/**
	 * A semaphore's permit: a handle whatever the method returns.
	 */
	record Permit(RedisSemaphore semaphore) implements LockTarget {

		@Override
		public @Nullable Held acquire(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
			Optional<SemaphorePermit> acquired = this.semaphore.tryAcquire(waitTime, leaseTime);
			if (acquired.isEmpty()) {
				if (Thread.currentThread().isInterrupted()) {
					// Given up (a permit that comes later goes to the next waiter); the
					// caller sees the interrupt, and the thread stays interrupted.
					throw new InterruptedException("Interrupted while waiting for a semaphore permit");
				}
				return null;
			}
			SemaphorePermit permit = acquired.get();
			return new Held() {

				@Override
				public @Nullable Object proceed(MethodInvocation invocation) throws Throwable {
					try {
						return permit.runInContext(() -> {
							try {
								return invocation.proceed();
							}
							catch (RuntimeException | Error ex) {
								throw ex;
							}
							catch (Throwable ex) {
								throw new CheckedFailure(ex);
							}
						});
					}
					catch (CheckedFailure ex) {
						// Only the method's checked exceptions are carried so: one it
						// throws unchecked (a CompletionException of its own) reaches the
						// caller as it is.
						Throwable cause = ex.getCause();
						throw (cause != null) ? cause : ex;
					}
				}

				@Override
				public void release() {
					permit.close();
				}

			};
		}

		@Override
		@SuppressWarnings("unchecked")
		public CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
			// The acquisition's own future, so that cancelling it gives the acquisition
			// up.
			return (CompletableFuture<Optional<LockHandle>>) (CompletableFuture<?>) this.semaphore
				.tryAcquireAsync(waitTime, leaseTime);
		}

		@Override
		public LockAcquisitionException notAcquired(Duration waitTime) {
			return new LockAcquisitionException(this.semaphore.getName(), waitTime);
		}

		/**
		 * Carries a checked exception of the method out of {@code runInContext}.
		 */
		private static final class CheckedFailure extends RuntimeException {

			CheckedFailure(Throwable cause) {
				super(null, cause, false, false);
			}

		}

	}

}
