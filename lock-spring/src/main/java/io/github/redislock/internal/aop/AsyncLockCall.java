package io.github.redislock.internal.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.AsyncHold;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockMetricNames;
import io.github.redislock.observation.DefaultLockObservationConvention;
import io.github.redislock.observation.LockObservationContext;
import io.github.redislock.observation.LockObservationDocumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * One call of an annotated method that returns an asynchronous result: its lock is
 * acquired without blocking a thread, the method body runs once the lock is held, and the
 * lock is released when the result completes.
 */
final class AsyncLockCall {

	private final LockOperation operation;

	private final String lockName;

	private final RedisLock lock;

	private final DefaultRedisLockTemplate template;

	private final MethodInvocation invocation;

	private final ObservationRegistry observations;

	AsyncLockCall(LockOperation operation, String lockName, RedisLock lock, DefaultRedisLockTemplate template,
			MethodInvocation invocation, ObservationRegistry observations) {
		this.operation = operation;
		this.lockName = lockName;
		this.lock = lock;
		this.template = template;
		this.invocation = invocation;
		this.observations = observations;
	}

	LockOperation operation() {
		return this.operation;
	}

	/**
	 * Acquire the lock, observed as the wait; completes on a callback thread with the
	 * hold, or {@code null} when the wait time ran out.
	 */
	CompletableFuture<@Nullable AsyncHold> acquire() {
		LockObservationContext context = new LockObservationContext(LockObservationContext.Phase.WAIT,
				this.operation.name(), this.operation.type().kind(), this.lockName);
		Observation wait = LockObservationDocumentation.LOCK_WAIT
			.observation(null, DefaultLockObservationConvention.WAIT, () -> context, this.observations)
			.start();
		CompletableFuture<@Nullable AsyncHold> hold;
		try {
			// Measured under the declared name, never the per-call key.
			hold = LockMetricNames.with(this.operation.name(), this.operation.skips(),
					() -> this.template.acquireAsync(this.lock, this.operation.waitTime(), this.operation.leaseTime()));
		}
		catch (RuntimeException ex) {
			context.setOutcome("error");
			wait.error(ex);
			wait.stop();
			throw ex;
		}
		hold.whenComplete((acquired, failure) -> {
			context.setOutcome((failure != null) ? "error"
					: (acquired != null) ? "acquired" : this.operation.skips() ? "skipped" : "timeout");
			if (failure != null) {
				wait.error(failure);
			}
			wait.stop();
		});
		return hold;
	}

	/**
	 * Start observing the hold.
	 */
	Observation startHold() {
		return LockObservationDocumentation.LOCK_HOLD
			.observation(null, DefaultLockObservationConvention.HOLD,
					() -> new LockObservationContext(LockObservationContext.Phase.HOLD, this.operation.name(),
							this.operation.type().kind(), this.lockName),
					this.observations)
			.start();
	}

	/**
	 * Call the method body (a fresh invocation each time, so that a publisher subscribed
	 * twice runs the body twice), with the hold in {@code LockContext} meanwhile.
	 */
	@Nullable Object proceed(AsyncHold hold) {
		return hold.runInContext(() -> {
			try {
				MethodInvocation invocation = (this.invocation instanceof ProxyMethodInvocation proxied)
						? proxied.invocableClone() : this.invocation;
				return invocation.proceed();
			}
			catch (RuntimeException | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new CompletionException(ex);
			}
		});
	}

	/**
	 * Run a {@code CompletionStage} method under the lock: the caller gets at once a
	 * future that completes after the lock is released.
	 */
	CompletableFuture<@Nullable Object> completionStage() {
		return acquire().thenCompose((hold) -> {
			if (hold == null) {
				return notAcquiredStage();
			}
			Observation observation = startHold();
			CompletableFuture<@Nullable Object> result = DefaultRedisLockTemplate.whileHeld(hold,
					() -> asStage(proceed(hold)));
			return result.whenComplete((value, failure) -> {
				if (failure != null) {
					observation.error(failure);
				}
				observation.stop();
			});
		});
	}

	/**
	 * Run a method that returns its result synchronously under the hold (a semaphore
	 * permit): the calling thread waits for the asynchronous acquisition.
	 */
	@Nullable Object synchronous() throws Throwable {
		AsyncHold hold;
		try {
			hold = DefaultRedisLockTemplate.awaitHold(acquire());
		}
		catch (InterruptedException ex) {
			// Given up (a permit that comes later goes to the next waiter); the caller
			// sees the interrupt, and the thread stays interrupted.
			Thread.currentThread().interrupt();
			throw ex;
		}
		if (hold == null) {
			Method fallback = this.operation.fallback();
			if (fallback != null) {
				return invokeFallback(fallback);
			}
			if (this.operation.onFailure() == OnLockFailure.SKIP) {
				return this.operation.skippedResult();
			}
			throw notAcquired();
		}
		Observation observation = startHold();
		Object result;
		try {
			result = hold.runInContext(() -> {
				try {
					return this.invocation.proceed();
				}
				catch (RuntimeException | Error ex) {
					throw ex;
				}
				catch (Throwable ex) {
					throw new CompletionException(ex);
				}
			});
		}
		catch (Throwable ex) {
			Throwable failure = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
			observation.error(failure);
			observation.stop();
			releaseAfterFailure(hold, failure);
			throw failure;
		}
		observation.stop();
		try {
			hold.release().join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() != null) ? ex.getCause() : ex;
		}
		return result;
	}

	private static void releaseAfterFailure(AsyncHold hold, Throwable failure) {
		try {
			hold.release().join();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed((ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex);
		}
	}

	@SuppressWarnings("unchecked")
	private static CompletionStage<@Nullable Object> asStage(@Nullable Object value) {
		if (value == null) {
			return CompletableFuture.completedFuture(null);
		}
		return (CompletionStage<@Nullable Object>) value;
	}

	private CompletableFuture<@Nullable Object> notAcquiredStage() {
		Method fallback = this.operation.fallback();
		if (fallback != null) {
			return asStage(invokeFallback(fallback)).toCompletableFuture();
		}
		if (this.operation.onFailure() == OnLockFailure.SKIP) {
			return CompletableFuture.completedFuture(null);
		}
		return CompletableFuture.failedFuture(notAcquired());
	}

	/**
	 * Call the fallback method with the call's arguments.
	 */
	@Nullable Object invokeFallback(Method fallback) {
		try {
			return fallback.invoke(this.invocation.getThis(), this.invocation.getArguments());
		}
		catch (InvocationTargetException ex) {
			Throwable target = ex.getTargetException();
			throw (target instanceof RuntimeException runtime) ? runtime : new CompletionException(target);
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException(ex);
		}
	}

	RuntimeException notAcquired() {
		return DefaultRedisLockTemplate.notAcquired(this.lock, this.operation.waitTime());
	}

}
