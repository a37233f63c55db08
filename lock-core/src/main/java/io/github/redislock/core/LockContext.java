package io.github.redislock.core;

import io.github.redislock.support.CurrentLock;
import io.github.redislock.support.CurrentLocks;

/**
 * The locks the current thread holds, for code running under one (inside an annotated
 * method, a {@link RedisLockTemplate#execute} callback, or between {@code lock()} and
 * {@code unlock()}): the innermost lock's name and fencing token, and whether it is still
 * held. <pre class="code">
 * repository.save(order, LockContext.fencingToken());
 * </pre>
 *
 * @since 0.1.0
 */
public final class LockContext {

	private LockContext() {
	}

	/**
	 * Return the fencing token of the innermost lock the current thread holds.
	 * @return the fencing token
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static long fencingToken() {
		return innermost().fencingToken();
	}

	/**
	 * Return the full name ({@code name:key}) of the innermost lock the current thread
	 * holds.
	 * @return the lock name
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static String lockName() {
		return innermost().lockName();
	}

	/**
	 * Return whether the innermost lock is still held: {@code false} once it is known
	 * lost (a renewal found it gone, or its lease ran out before a renewal succeeded).
	 * @return whether the lock is still held
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static boolean isHeld() {
		return innermost().isHeld();
	}

	/**
	 * Throw when the innermost lock is known lost; call it before a write that must not
	 * happen without the lock.
	 * @throws LockLostException when the lock is known lost
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static void ensureHeld() {
		CurrentLock hold = innermost();
		if (!hold.isHeld()) {
			throw new LockLostException(hold.lockName(), hold.fencingToken(), hold.lostReason());
		}
	}

	private static CurrentLock innermost() {
		CurrentLock hold = CurrentLocks.innermost();
		if (hold == null) {
			throw new IllegalStateException("The current thread holds no distributed lock; LockContext is only"
					+ " available while a lock is held (inside @DistributedLock methods or lock callbacks)");
		}
		return hold;
	}

}
