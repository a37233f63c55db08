package io.github.redislock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.github.redislock.support.Completions;
import io.github.redislock.support.Printable;
import org.jspecify.annotations.Nullable;

/**
 * Asynchronous work under a {@link LockHandle} of any template, for the defaults of
 * {@link RedisLockTemplate}: the handle is released when the work completes, and the
 * result completes after the release.
 */
final class HandleWork {

	private HandleWork() {
	}

	/**
	 * Run {@code action} under {@code handle} (its synchronous part sees the hold in
	 * {@link LockContext}) and release the hold once the stage it returns completed,
	 * normally or not: the result is the work's value or failure (a failed release
	 * attached to it), or the release's failure.
	 */
	static <T extends @Nullable Object> CompletableFuture<T> whileHeld(LockHandle handle,
			Supplier<? extends CompletionStage<T>> action) {
		CompletionStage<T> work;
		try {
			work = handle.runInContext(action);
			if (work == null) {
				throw new IllegalStateException("The asynchronous action under lock '" + Printable.of(handle.getName())
						+ "' returned null instead of a CompletionStage");
			}
		}
		catch (RuntimeException ex) {
			return handle.releaseAsync().handle((released, releaseFailure) -> {
				if (releaseFailure != null) {
					ex.addSuppressed(Completions.unwrap(releaseFailure));
				}
				throw ex;
			});
		}
		return Completions.afterRelease(work, handle::releaseAsync);
	}

}
