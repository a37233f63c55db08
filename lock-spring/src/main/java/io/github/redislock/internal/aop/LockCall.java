package io.github.redislock.internal.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.LockHandle;
import io.github.redislock.observation.DefaultLockObservationConvention;
import io.github.redislock.observation.LockObservationContext;
import io.github.redislock.observation.LockObservationDocumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * One call of an annotated method under its lock: acquires what the annotation asks for
 * ({@link LockTarget}), runs the method, releases, and applies the fallback or failure
 * policy when not acquired; observed as the wait and the hold. A method that returns its
 * result synchronously holds the lock while it runs; one that returns a
 * {@code CompletionStage} holds it, acquired without blocking a thread, until the stage
 * completes (reactive results: {@link ReactiveLockCalls}).
 */
final class LockCall {

	private final LockOperation operation;

	private final String lockName;

	private final LockTarget target;

	private final MethodInvocation invocation;

	private final ObservationRegistry observations;

	LockCall(LockOperation operation, String lockName, LockTarget target, MethodInvocation invocation,
			ObservationRegistry observations) {
		this.operation = operation;
		this.lockName = lockName;
		this.target = target;
		this.invocation = invocation;
		this.observations = observations;
	}

	LockOperation operation() {
		return this.operation;
	}

	/**
	 * Run a method that returns its result synchronously: the calling thread waits for
	 * the lock and holds it while the method runs.
	 */
	@Nullable Object synchronous() throws Throwable {
		LockObservationContext waitContext = waitContext();
		Observation wait = startWait(waitContext);
		LockTarget.Held held;
		try (Observation.Scope scope = wait.openScope()) {
			held = this.target.acquire(this.operation.waitTime(), this.operation.leaseTime());
			waitContext.setOutcome(outcome(held != null));
		}
		catch (Throwable ex) {
			waitContext.setOutcome("error");
			wait.error(ex);
			throw ex;
		}
		finally {
			wait.stop();
		}
		if (held == null) {
			return notAcquired();
		}
		Observation hold = startHold();
		Object result;
		try (Observation.Scope scope = hold.openScope()) {
			result = held.proceed(this.invocation);
		}
		catch (Throwable ex) {
			hold.error(ex);
			hold.stop();
			held.releaseAfter(ex);
			throw ex;
		}
		hold.stop();
		held.release();
		return result;
	}

	private @Nullable Object notAcquired() throws Throwable {
		Method fallback = this.operation.fallback();
		if (fallback != null) {
			try {
				return fallback.invoke(this.invocation.getThis(), this.invocation.getArguments());
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}
		if (this.operation.onFailure() == OnLockFailure.SKIP) {
			return this.operation.skippedResult();
		}
		throw notAcquiredException();
	}

	/**
	 * Run a {@code CompletionStage} method under the lock: the caller gets at once a
	 * future that completes after the lock is released.
	 */
	CompletableFuture<@Nullable Object> completionStage() {
		CompletableFuture<Optional<LockHandle>> acquisition = acquire();
		CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
		acquisition.thenCompose((handle) -> {
			if (handle.isPresent() && result.isDone()) {
				// The caller stopped waiting (cancelled, or timed out) as the hold came:
				// the method does not run, the hold goes back.
				handle.get().releaseAsync();
				return CompletableFuture.failedFuture(new CancellationException("Given up by its caller"));
			}
			return handle.isPresent() ? whileHeld(handle.get()) : notAcquiredStage();
		}).whenComplete((value, failure) -> {
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(value);
			}
		});
		// A caller that stops waiting for the lock (cancels the future, lets orTimeout
		// fail it) gives the acquisition up: a stage depending on the caller's future
		// would be skipped, and a hold that came later be renewed for nobody.
		result.whenComplete((value, failure) -> {
			if (!acquisition.isDone()) {
				acquisition.cancel(false);
			}
		});
		return result;
	}

	private CompletableFuture<@Nullable Object> whileHeld(LockHandle handle) {
		Observation observation = startHold();
		CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
		CompletionStage<@Nullable Object> work;
		try {
			work = asStage(proceed(handle));
		}
		catch (RuntimeException | Error ex) {
			work = CompletableFuture.failedFuture(ex);
		}
		// Completed after the release: with the work's outcome (a failing release
		// attached to its failure), or with the release's failure.
		work.whenComplete((value, failure) -> handle.releaseAsync().whenComplete((released, releaseFailure) -> {
			Throwable cause = unwrap(failure);
			Throwable releaseCause = unwrap(releaseFailure);
			if (cause != null && releaseCause != null) {
				cause.addSuppressed(releaseCause);
			}
			Throwable outcome = (cause != null) ? cause : releaseCause;
			if (outcome != null) {
				observation.error(outcome);
				observation.stop();
				result.completeExceptionally(outcome);
			}
			else {
				observation.stop();
				result.complete(value);
			}
		}));
		return result;
	}

	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
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
		return CompletableFuture.failedFuture(notAcquiredException());
	}

	/**
	 * Acquire without blocking a thread, observed as the wait; completes on a callback
	 * thread with the hold, or empty when the wait time ran out. The acquisition's own
	 * future: cancelling it gives the acquisition up.
	 */
	CompletableFuture<Optional<LockHandle>> acquire() {
		LockObservationContext context = waitContext();
		Observation wait = startWait(context);
		CompletableFuture<Optional<LockHandle>> handle;
		try {
			handle = this.target.acquireAsync(this.operation.waitTime(), this.operation.leaseTime());
		}
		catch (RuntimeException ex) {
			context.setOutcome("error");
			wait.error(ex);
			wait.stop();
			throw ex;
		}
		handle.whenComplete((acquired, failure) -> {
			context.setOutcome((failure != null) ? "error" : outcome(acquired.isPresent()));
			if (failure != null) {
				wait.error(failure);
			}
			wait.stop();
		});
		return handle;
	}

	private String outcome(boolean acquired) {
		return acquired ? "acquired" : this.operation.skips() ? "skipped" : "timeout";
	}

	private LockObservationContext waitContext() {
		return new LockObservationContext(LockObservationContext.Phase.WAIT, this.operation.name(),
				this.operation.type().kind(), this.lockName);
	}

	private Observation startWait(LockObservationContext context) {
		return LockObservationDocumentation.LOCK_WAIT
			.observation(null, DefaultLockObservationConvention.WAIT, () -> context, this.observations)
			.start();
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
	@Nullable Object proceed(LockHandle handle) {
		return handle.runInContext(() -> {
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

	RuntimeException notAcquiredException() {
		return this.target.notAcquired(this.operation.waitTime());
	}

}
