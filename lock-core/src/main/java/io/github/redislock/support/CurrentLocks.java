package io.github.redislock.support;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The holds the current thread runs under, innermost last: recorded by the engine when a
 * hold begins and ends on a thread, read by {@link io.github.redislock.core.LockContext}.
 *
 * @since 0.1.0
 */
public final class CurrentLocks {

	private static final ThreadLocal<ArrayDeque<CurrentLock>> HOLDS = ThreadLocal.withInitial(ArrayDeque::new);

	private CurrentLocks() {
	}

	/**
	 * Return the innermost hold of the current thread.
	 * @return the hold, or {@code null} when the thread holds none
	 */
	public static @Nullable CurrentLock innermost() {
		ArrayDeque<CurrentLock> holds = HOLDS.get();
		CurrentLock hold = holds.peekLast();
		if (hold == null) {
			HOLDS.remove();
		}
		return hold;
	}

	/**
	 * Return the holds the current thread runs under, outermost first (a copy).
	 * @return the holds, empty when the thread holds none
	 */
	public static List<CurrentLock> all() {
		ArrayDeque<CurrentLock> holds = HOLDS.get();
		List<CurrentLock> all = List.copyOf(holds);
		if (holds.isEmpty()) {
			HOLDS.remove();
		}
		return all;
	}

	/**
	 * Record that the current thread now runs under {@code hold}.
	 * @param hold the hold
	 */
	public static void entered(CurrentLock hold) {
		HOLDS.get().addLast(hold);
	}

	/**
	 * Record that the current thread now runs under {@code replacement} wherever it ran
	 * under {@code hold} (a lost hold its thread took afresh), each in its place.
	 * @param hold the hold replaced
	 * @param replacement the hold in its place
	 */
	public static void replace(CurrentLock hold, CurrentLock replacement) {
		ArrayDeque<CurrentLock> holds = HOLDS.get();
		ArrayDeque<CurrentLock> replaced = new ArrayDeque<>(holds.size());
		for (CurrentLock current : holds) {
			replaced.addLast((current == hold) ? replacement : current);
		}
		holds.clear();
		holds.addAll(replaced);
	}

	/**
	 * Record that the current thread no longer runs under {@code hold}; holds may end out
	 * of order (a {@code Lock} user may release them so).
	 * @param hold the hold
	 */
	public static void exited(CurrentLock hold) {
		ArrayDeque<CurrentLock> holds = HOLDS.get();
		Iterator<CurrentLock> iterator = holds.descendingIterator();
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
