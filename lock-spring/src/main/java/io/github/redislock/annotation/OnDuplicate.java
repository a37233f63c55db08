package io.github.redislock.annotation;

/**
 * What a {@link QueuedTask} call does when a task with the same id is already waiting.
 *
 * @since 0.1.0
 */
public enum OnDuplicate {

	/**
	 * Change nothing: the waiting task keeps its payload and due time.
	 */
	KEEP,

	/**
	 * Replace the waiting task's payload and due time.
	 */
	REPLACE

}
