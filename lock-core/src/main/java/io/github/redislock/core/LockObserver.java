package io.github.redislock.core;

import java.time.Duration;

/**
 * Told what the locks of a template do, for metrics. Called on the threads that do it, so
 * implementations must be quick and must not throw.
 * <p>
 * {@code metricName} is the lock's declared name, never a per-call key: the annotation's
 * {@code name} for annotated methods, otherwise the part of the lock name before its
 * first {@code :}.
 *
 * @since 0.1.0
 */
public interface LockObserver {

	/**
	 * A lock was acquired (not counting re-entry).
	 */
	default void acquired(String metricName, LockKind kind, Duration waited) {
	}

	/**
	 * A lock was not acquired: its wait time ran out ({@code error} false) or Redis
	 * failed ({@code error} true).
	 */
	default void notAcquired(String metricName, LockKind kind, Duration waited, boolean error) {
	}

	/**
	 * A lock was not acquired within its wait time by a caller that skips its work then
	 * (an annotated method with {@code onFailure = SKIP}, a {@code @Scheduled} method
	 * that found its lock taken): an expected outcome, not a time-out. By default told as
	 * {@link #notAcquired} with {@code error} false.
	 * @param metricName the lock's declared name
	 * @param kind the kind of lock
	 * @param waited how long the caller waited
	 * @since 0.1.0
	 */
	default void skipped(String metricName, LockKind kind, Duration waited) {
		notAcquired(metricName, kind, waited, false);
	}

	/**
	 * A lock's last hold was released after being held for {@code held}.
	 */
	default void released(String metricName, LockKind kind, Duration held) {
	}

	/**
	 * The watchdog renewed {@code count} holds.
	 */
	default void renewed(int count) {
	}

	/**
	 * A held lock was found lost.
	 */
	default void lost(String metricName, LockKind kind) {
	}

}
