package io.github.redislock.core;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The locks the current thread holds, for code running under one (inside an annotated
 * method, a {@link RedisLockTemplate#execute} callback, or between {@code lock()} and
 * {@code unlock()}): the innermost lock's name and fencing token, and whether it is still
 * held. <pre class="code">
 * repository.save(order, LockContext.fencingToken());
 * </pre>
 */
public final class LockContext {

	private static final ThreadLocal<ArrayDeque<LockHold>> HOLDS = ThreadLocal.withInitial(ArrayDeque::new);

	private LockContext() {
	}

	/**
	 * Return the fencing token of the innermost lock the current thread holds.
	 * @return the fencing token
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static long fencingToken() {
		return innermost().token();
	}

	/**
	 * Return the full name ({@code name:key}) of the innermost lock the current thread
	 * holds.
	 * @return the lock name
	 * @throws IllegalStateException when the current thread holds no lock
	 */
	public static String lockName() {
		return innermost().name();
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
