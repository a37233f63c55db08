package io.github.redislock.internal.queue;

/**
 * Told what the task queues do, for metrics. Must be quick and must not throw.
 *
 * @since 0.1.0
 */
public interface QueueObserver {

	/**
	 * A task was enqueued (or replaced) in {@code queue}.
	 */
	default void enqueued(String queue) {
	}

	/**
	 * A worker finished a run of a task of {@code queue}: {@code success}, {@code retry}
	 * (failed, will run again) or {@code dead} (failed for the last time).
	 */
	default void processed(String queue, String outcome) {
	}

	/**
	 * A running task of {@code queue} lost its claim: a renewal found it taken, or no
	 * renewal reached Redis within the visibility timeout.
	 */
	default void claimLost(String queue) {
	}

}
