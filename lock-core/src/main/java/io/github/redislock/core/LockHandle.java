package io.github.redislock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import io.github.redislock.support.CurrentLock;
import io.github.redislock.support.CurrentLocks;
import org.jspecify.annotations.Nullable;

/**
 * A hold of a lock that no thread owns: taken without blocking a thread
 * ({@link RedisLock#tryAcquireAsync}, {@link RedisSemaphore#tryAcquireAsync}) or waiting
 * on the calling thread
 * ({@link RedisLockTemplate#tryAcquire(String, Duration, Duration, Duration)}), renewed
 * by the watchdog like any hold (unless taken with a fixed lease, or {@link #extend
 * extended}), extended and released from any thread. What the annotations hold while the
 * {@code CompletionStage}, {@code Mono} or {@code Flux} of a method is under way.
 * <pre class="code">
 * lock.tryAcquireAsync(Duration.ofSeconds(3), null).thenAccept((handle) -&gt; handle.ifPresent(
 *         (held) -&gt; export(held.fencingToken()).whenComplete((done, failure) -&gt; held.releaseAsync())));
 * </pre>
 * <p>
 * A handle is not re-entrant: the same lock taken again, by any thread or handle, waits
 * like any other owner.
 *
 * @since 0.1.0
 */
public interface LockHandle {

	/**
	 * Return the full name of the held lock (for a permit: of its semaphore).
	 * @return the lock name
	 */
	String getName();

	/**
	 * Return the hold's fencing token: strictly increasing per lock name across all
	 * holders.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Return whether the lock is still held: {@code false} once released or known lost (a
	 * renewal found it gone, or its lease ran out first).
	 * @return whether it is held
	 */
	boolean isHeld();

	/**
	 * Extend this hold, from any thread: owner-checked, in one script call, a new fixed
	 * lease of {@code lease} from now, timed by the Redis server; a hold with a minimum
	 * hold ({@link RedisLock#withHoldAtLeast},
	 * {@link RedisLockTemplate#tryAcquire(String, Duration, Duration, Duration)}) then
	 * stays taken after its release until at least that minimum after this extension.
	 * From then on the lease is fixed: the watchdog no longer renews the hold. The call
	 * waits for Redis to answer (one round trip); extensions of one handle from several
	 * threads take turns.
	 * <p>
	 * An extension that finds the hold gone answers {@code false}, leaves whatever is in
	 * Redis untouched and reports the loss at once (a {@link LockLostEvent}), as a
	 * renewal that finds it gone does; after {@link #release()} it answers {@code false}
	 * and reports nothing. When Redis cannot be reached the call fails with Spring's
	 * {@code DataAccessException}, and the hold keeps the lease it had, no longer
	 * renewed.
	 * @param lease the new lease, counted from now; positive
	 * @return whether the hold was extended; {@code false} when it is gone or released
	 * @throws UnsupportedOperationException when this handle cannot extend its hold (the
	 * default)
	 * @since 0.1.0
	 */
	default boolean extend(Duration lease) {
		throw new UnsupportedOperationException(
				"The hold of '" + getName() + "' (" + getClass().getName() + ") cannot be extended");
	}

	/**
	 * Extend this hold as {@link #extend(Duration)} does, with {@code holdAtLeast} in
	 * place of the hold's own minimum hold from now on: after its release the lock stays
	 * taken until at least {@code holdAtLeast} after this extension, timed by the Redis
	 * server, and no longer for what the acquisition (or an earlier extension) asked;
	 * zero: released at once. What a bridge to an API whose extension carries a minimum
	 * hold of its own needs (ShedLock's {@code SimpleLock.extend(lockAtMostFor,
	 * lockAtLeastFor)}). {@code extend(lease)} is this call with the hold's own minimum
	 * hold.
	 * @param lease the new lease, counted from now; positive
	 * @param holdAtLeast the minimum hold, counted from now; zero or positive
	 * @return whether the hold was extended; {@code false} when it is gone or released
	 * @throws UnsupportedOperationException when this handle cannot extend its hold with
	 * a minimum hold of its own (the default; a semaphore permit, which has no minimum
	 * hold, for a positive {@code holdAtLeast})
	 * @since 0.1.0
	 */
	default boolean extend(Duration lease, Duration holdAtLeast) {
		throw new UnsupportedOperationException("The hold of '" + getName() + "' (" + getClass().getName()
				+ ") cannot be extended with a minimum hold of its own");
	}

	/**
	 * Release the lock without blocking; later calls do nothing. With a minimum hold
	 * ({@link RedisLock#withHoldAtLeast}), the lock stays taken for what remains of it.
	 * @return a future that completes once Redis has answered; it fails with
	 * {@link LockLostException} when the hold had been lost (unless
	 * {@code redislock.on-lock-lost=log})
	 */
	CompletableFuture<@Nullable Void> releaseAsync();

	/**
	 * Release the lock, waiting for Redis to answer; later calls do nothing.
	 * @throws LockLostException when the hold had been lost (unless
	 * {@code redislock.on-lock-lost=log})
	 */
	default void release() {
		try {
			releaseAsync().join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	/**
	 * Run {@code action} on the calling thread with this hold as the innermost lock that
	 * {@link LockContext} describes, so that code written for annotated methods
	 * ({@code LockContext.fencingToken()}) works inside it too. The hold stays this
	 * handle's: nothing is released when the action returns.
	 * <p>
	 * The default describes the hold through this handle's own methods.
	 * @param <T> the action's result type
	 * @param action what to run
	 * @return the action's result
	 */
	default <T extends @Nullable Object> T runInContext(Supplier<T> action) {
		CurrentLock hold = HandleLock.of(this);
		CurrentLocks.entered(hold);
		try {
			return action.get();
		}
		finally {
			CurrentLocks.exited(hold);
		}
	}

}
