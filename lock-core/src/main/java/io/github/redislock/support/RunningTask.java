package io.github.redislock.support;

import org.jspecify.annotations.Nullable;

/**
 * A queued task as {@link io.github.redislock.queue.TaskContext} sees it: implemented by
 * the queue's workers.
 *
 * @since 0.1.0
 */
public interface RunningTask {

	/**
	 * Return the task's queue.
	 * @return the queue name
	 */
	String queue();

	/**
	 * Return the task's id.
	 * @return the id
	 */
	String taskId();

	/**
	 * Return the attempt this run is.
	 * @return the attempt, 1 for the first
	 */
	int attempt();

	/**
	 * Return why the claim was lost.
	 * @return the reason, or {@code null} while the claim is held
	 */
	@Nullable String lostReason();

}
