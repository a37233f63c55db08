package io.github.redislock.queue;

import java.util.List;

/**
 * The dead letters of the task queues: tasks that failed too often, kept with their last
 * error, bounded in number and age ({@code redislock.queue.dead-letter.*}).
 *
 * @since 0.1.0
 */
public interface DeadLetters {

	/**
	 * List up to {@code count} dead tasks of a queue, oldest first.
	 * @param queue the queue name
	 * @param count how many at most
	 * @return the dead tasks
	 */
	List<DeadTask> list(String queue, int count);

	/**
	 * Put a dead task back in its queue, due now, with its attempts reset.
	 * @param queue the queue name
	 * @param id the task id
	 * @return whether there was such a dead task
	 */
	boolean requeue(String queue, String id);

	/**
	 * Delete every dead task of a queue.
	 * @param queue the queue name
	 * @return how many were deleted
	 */
	long purge(String queue);

}
