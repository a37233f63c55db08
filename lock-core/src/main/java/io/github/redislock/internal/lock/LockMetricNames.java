package io.github.redislock.internal.lock;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The declared name under which locks taken by the current call are measured: set by the
 * annotation advice around its acquisition; otherwise derived from the lock name.
 *
 * @since 0.1.0
 */
public final class LockMetricNames {

	private static final ThreadLocal<@Nullable String> DECLARED = new ThreadLocal<>();

	/**
	 * Set while an annotated call that skips its work when the lock is taken acquires.
	 */
	private static final ThreadLocal<@Nullable Boolean> SKIPPING = new ThreadLocal<>();

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
		return with(declaredName, false, action);
	}

	/**
	 * Run {@code action} with locks it acquires measured under {@code declaredName}, and
	 * a wait that ends without the lock counted as skipped when {@code skipping} (the
	 * call skips its work then).
	 * @param <T> the result type
	 * @param declaredName the annotation's lock name
	 * @param skipping whether the caller skips its work when the lock is not acquired
	 * @param action what acquires the lock
	 * @return the action's result
	 */
	public static <T> T with(String declaredName, boolean skipping, Supplier<T> action) {
		String previous = DECLARED.get();
		Boolean previousSkipping = SKIPPING.get();
		DECLARED.set(declaredName);
		SKIPPING.set(skipping);
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
			if (previousSkipping != null) {
				SKIPPING.set(previousSkipping);
			}
			else {
				SKIPPING.remove();
			}
		}
	}

	/**
	 * Return whether the lock being acquired now is acquired for a call that skips its
	 * work when it is not.
	 */
	static boolean skipping() {
		return Boolean.TRUE.equals(SKIPPING.get());
	}

	/**
	 * Return the metric name for a lock being acquired now: the declared name inside an
	 * annotated call, else the part of the lock name before its first {@code :} (the
	 * whole name when it has none), among at most {@value #MAX_DERIVED} distinct names
	 * per template; beyond those, {@value #OTHER}.
	 */
	static String of(String lockName, Derived derived) {
		String declared = DECLARED.get();
		if (declared != null) {
			return declared;
		}
		int colon = lockName.indexOf(':');
		return derived.bounded((colon > 0) ? lockName.substring(0, colon) : lockName);
	}

	/** Most distinct names derived from template lock names, per template. */
	static final int MAX_DERIVED = 100;

	/** The name tag of template locks past {@link #MAX_DERIVED} distinct names. */
	static final String OTHER = "other";

	/**
	 * The names one template has derived so far: bounded, so lock names built from data
	 * (without a {@code :} between a fixed prefix and the variable part) cannot create a
	 * meter per value.
	 */
	static final class Derived {

		private final Set<String> names = ConcurrentHashMap.newKeySet();

		private final AtomicBoolean warned = new AtomicBoolean();

		String bounded(String name) {
			if (this.names.contains(name)) {
				return name;
			}
			if (this.names.size() < MAX_DERIVED) {
				this.names.add(name);
				return name;
			}
			if (this.warned.compareAndSet(false, true)) {
				LogFactory.getLog(LockMetricNames.class)
					.warn("More than " + MAX_DERIVED + " distinct lock names seen by one lock template; further ones"
							+ " are measured under the name tag '" + OTHER + "'. Name locks 'prefix:variable part'"
							+ " (the tag is the prefix), or use the annotations, whose tag is the declared name");
			}
			return OTHER;
		}

	}

}
