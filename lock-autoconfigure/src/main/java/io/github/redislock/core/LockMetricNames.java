package io.github.redislock.core;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The declared name under which locks taken by the current call are measured: set by the
 * annotation advice around its acquisition; otherwise derived from the lock name.
 */
public final class LockMetricNames {

	private static final ThreadLocal<@Nullable String> DECLARED = new ThreadLocal<>();

	private LockMetricNames() {
	}

	/**
	 * Run {@code action} with locks it acquires measured under {@code declaredName}.
	 * @param <T> the result type
	 * @param declaredName the annotation's lock name
	 * @param action what acquires the lock
	 * @return the action's result
	 */
	public static <T> T with(String declaredName, Supplier<T> action) {
		String previous = DECLARED.get();
		DECLARED.set(declaredName);
		try {
			return action.get();
		}
		finally {
			if (previous != null) {
				DECLARED.set(previous);
			}
			else {
				DECLARED.remove();
			}
		}
	}

	/**
	 * Return the metric name for a lock being acquired now.
	 */
	static String of(String lockName) {
		String declared = DECLARED.get();
		if (declared != null) {
			return declared;
		}
		int colon = lockName.indexOf(':');
		return (colon > 0) ? lockName.substring(0, colon) : lockName;
	}

}
