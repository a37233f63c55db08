package io.github.redislock.internal.lock;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The name under which a lock's acquisitions and holds are measured: the declared name
 * given by {@link io.github.redislock.core.RedisLock#withMetricName} (what the
 * annotations give), otherwise derived from the lock name.
 *
 * @since 0.1.0
 */
final class LockMetricNames {

	private LockMetricNames() {
	}

	/**
	 * How the acquisitions through one lock object are measured.
	 *
	 * @param declaredName the name to measure under, or {@code null} to derive it from
	 * the lock name
	 * @param skipping whether the caller skips its work when the lock is not acquired
	 * (then that is counted as skipped, not as a time-out)
	 */
	record Tag(@Nullable String declaredName, boolean skipping) {

		/** Measured under the name derived from the lock name. */
		static final Tag DERIVED = new Tag(null, false);

		static Tag declared(String declaredName, boolean skipping) {
			Assert.hasText(declaredName, "'metricName' must not be empty");
			return new Tag(declaredName, skipping);
		}

	}

	/**
	 * Return the metric name for a lock being acquired now: the declared name when the
	 * lock object has one, else the part of the lock name before its first {@code :} (the
	 * whole name when it has none), among at most {@value #MAX_DERIVED} distinct names
	 * per template; beyond those, {@value #OTHER}.
	 */
	static String of(String lockName, Tag tag, Derived derived) {
		String declared = tag.declaredName();
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
