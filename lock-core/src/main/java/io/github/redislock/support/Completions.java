package io.github.redislock.support;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Asynchronous work under a hold, shared by the API's default methods and the engine: the
 * hold is released when the work completes, and the result completes after the release.
 *
 * @since 0.1.0
 */
public final class Completions {

	private Completions() {
	}

	/**
	 * Release once {@code work} completed, normally or not: the result is the work's
	 * value or failure (a failed release attached to it as suppressed), or the release's
	 * failure.
	 * @param <T> the result type
	 * @param work the work under the hold
	 * @param release starts the release
	 * @return the work's outcome, after the release
	 */
	public static <T> CompletableFuture<T> afterRelease(CompletionStage<T> work,
			Supplier<? extends CompletableFuture<?>> release) {
		CompletableFuture<T> result = new CompletableFuture<>();
		work.whenComplete((value, failure) -> release.get().whenComplete((released, releaseFailure) -> {
			Throwable cause = (releaseFailure != null) ? unwrap(releaseFailure) : null;
			if (failure != null) {
				if (cause != null) {
					failure.addSuppressed(cause);
				}
				result.completeExceptionally(failure);
			}
			else if (cause != null) {
				result.completeExceptionally(cause);
			}
			else {
				result.complete(value);
			}
		}));
		return result;
	}

	/**
	 * Return the cause of a {@link CompletionException}, or the failure itself.
	 * @param failure a future's failure
	 * @return what failed
	 */
	public static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
