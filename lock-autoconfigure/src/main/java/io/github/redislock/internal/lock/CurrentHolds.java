package io.github.redislock.internal.lock;

import java.util.ArrayDeque;
import java.util.Iterator;

import io.github.redislock.core.LockLostException;

/**
 * The holds the current thread is inside, innermost last: what
 * {@link io.github.redislock.core.LockContext} reads.
 *
 * @since 0.1.0
 */
public final class CurrentHolds {

	private static final ThreadLocal<ArrayDeque<LockHold>> HOLDS = ThreadLocal.withInitial(ArrayDeque::new);

	private CurrentHolds() {
	}

	/**
	 * Return the fencing token of the innermost hold.
	 * @return the token
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static long token() {
		return innermost().token();
	}

	/**
	 * Return the full name of the innermost hold's lock.
	 * @return the lock name
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static String name() {
		return innermost().name();
	}

	/**
	 * Return whether the innermost hold is still held.
	 * @return whether it is held
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static boolean isHeld() {
		return innermost().isHeld();
	}

	/**
	 * Throw when the innermost hold is known lost.
	 * @throws LockLostException when it is known lost
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static void ensureHeld() {
		LockHold hold = innermost();
		if (!hold.isHeld()) {
			throw new LockLostException(hold.name(), hold.token(), hold.lostReason());
		}
	}

	private static LockHold innermost() {
		LockHold hold = HOLDS.get().peekLast();
		if (hold == null) {
			throw new IllegalStateException("The current thread holds no distributed lock; LockContext is only"
					+ " available while a lock is held (inside @DistributedLock methods or lock callbacks)");
		}
		return hold;
	}

	static void entered(LockHold hold) {
		HOLDS.get().addLast(hold);
	}

	static void exited(LockHold hold) {
		ArrayDeque<LockHold> holds = HOLDS.get();
		// Usually the last one; Lock users may release out of order.
		Iterator<LockHold> iterator = holds.descendingIterator();
		while (iterator.hasNext()) {
			if (iterator.next() == hold) {
				iterator.remove();
				break;
			}
		}
		if (holds.isEmpty()) {
			HOLDS.remove();
		}
	}

}
