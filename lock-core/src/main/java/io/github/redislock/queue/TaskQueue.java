package io.github.redislock.queue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Named task queues on Redis: tasks with an id (deduplicated among the waiting ones), a
 * JSON payload and a due time taken from the Redis server's clock. Every operation is one
 * atomic script.
 * <p>
 * {@link #pop} hands tasks over to the caller: it removes them. Methods annotated with
 * {@code @io.github.redislock.annotation.QueuedTask} (in {@code redis-lock-spring}) are
 * run by workers with at-least-once delivery instead.
 *
 * @since 0.1.0
 */
public interface TaskQueue {

	/**
	 * Enqueue a task unless one with the same id is waiting already.
	 * @param queue the queue name
	 * @param id the task id
	 * @param payload the payload, stored as JSON (written with the application's JSON
	 * mapper)
	 * @param delay how long from now until the task is due; {@code null} or zero: now
	 * @return {@code true} when enqueued, {@code false} when a task with this id was
	 * waiting (it is kept unchanged)
	 */
	boolean enqueue(String queue, String id, @Nullable Object payload, @Nullable Duration delay);

	/**
	 * Enqueue a task unless one with the same id is waiting, running, or ran within
	 * {@code dedupFor}: a task enqueued here marks its id for {@code dedupFor} when it
	 * starts and again when it succeeds (a task that ends in the dead letters leaves no
	 * mark). At-least-once delivery plus a window, not exactly-once.
	 * @param queue the queue name
	 * @param id the task id
	 * @param payload the payload, stored as JSON
	 * @param delay how long from now until the task is due; {@code null} or zero: now
	 * @param dedupFor the window (zero: none, as
	 * {@link #enqueue(String, String, Object, Duration)})
	 * @return {@code true} when enqueued, {@code false} when a task with this id was
	 * waiting, runs, or ran within the window
	 */
	boolean enqueue(String queue, String id, @Nullable Object payload, @Nullable Duration delay, Duration dedupFor);

	/**
	 * Enqueue a task, replacing the payload and due time of a waiting task with the same
	 * id.
	 * @param queue the queue name
	 * @param id the task id
	 * @param payload the payload, stored as JSON
	 * @param delay how long from now until the task is due; {@code null} or zero: now
	 */
	void enqueueOrReplace(String queue, String id, @Nullable Object payload, @Nullable Duration delay);

	/**
	 * Take up to {@code count} due tasks, earliest first; they are removed, and no task
	 * is returned to two callers.
	 * @param queue the queue name
	 * @param count how many at most
	 * @return the tasks taken
	 */
	List<TaskEntry> pop(String queue, int count);

	/**
	 * Look at up to {@code count} due tasks, earliest first, without removing them.
	 * @param queue the queue name
	 * @param count how many at most
	 * @return the due tasks
	 */
	List<TaskEntry> top(String queue, int count);

	/**
	 * Remove a waiting task only if its score (due time) still matches, so a task
	 * enqueued again meanwhile is left alone.
	 * @param queue the queue name
	 * @param id the task id
	 * @param score the due time the caller saw, in epoch milliseconds
	 * @return whether the task was removed
	 */
	boolean dequeue(String queue, String id, double score);

	/**
	 * Return how many tasks wait in the queue, due or not (not counting tasks being run).
	 * @param queue the queue name
	 * @return the number of waiting tasks
	 */
	long size(String queue);

	/**
	 * Remove the waiting task of an id, due or delayed; a running or dead task of the id
	 * is left alone.
	 * @param queue the queue name
	 * @param id the task id
	 * @return whether a task was removed
	 * @since 0.1.0
	 */
	boolean cancel(String queue, String id);

	/**
	 * Return the waiting task of an id, due or delayed.
	 * @param queue the queue name
	 * @param id the task id
	 * @return the task (its score is its due time), or empty when none of the id waits
	 * @since 0.1.0
	 */
	Optional<TaskEntry> find(String queue, String id);

	/**
	 * Return delayed tasks (not due yet), earliest first.
	 * @param queue the queue name
	 * @param count the most tasks to return (positive)
	 * @return the delayed tasks
	 * @since 0.1.0
	 */
	List<TaskEntry> upcoming(String queue, int count);

	/**
	 * Pause a queue on every instance: its workers take no task until it is resumed
	 * (running tasks finish); enqueues are still accepted. The state is kept in Redis.
	 * @param queue the queue name
	 * @since 0.1.0
	 */
	void pause(String queue);

	/**
	 * Resume a paused queue on every instance; its workers are woken at once.
	 * @param queue the queue name
	 * @since 0.1.0
	 */
	void resume(String queue);

	/**
	 * Return whether a queue is paused.
	 * @param queue the queue name
	 * @return whether its workers take nothing
	 * @since 0.1.0
	 */
	boolean isPaused(String queue);

}
