package io.github.redislock.queue;

import io.github.redislock.support.RunningTask;
import io.github.redislock.support.RunningTasks;

/**
 * The task a worker thread runs, for code inside a
 * {@code @io.github.redislock.annotation.QueuedTask} method (in
 * {@code redis-lock-spring}, which this module cannot link to): its queue, id and
 * attempt, and whether its claim is still held. A claim is lost when a renewal finds that
 * another worker claimed the task (after a pause or partition longer than the visibility
 * timeout), or when no renewal reached Redis within the visibility timeout; the task may
 * then run on another worker at the same time, and this run's outcome is not recorded.
 * Long tasks can check before each step that must not happen twice: <pre class="code">
 * for (Item item : items) {
 *     TaskContext.ensureClaimHeld();
 *     send(item);
 * }
 * </pre>
 *
 * @since 0.1.0
 */
public final class TaskContext {

	private TaskContext() {
	}

	/**
	 * Return the name of the queue of the running task.
	 * @return the queue name
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static String queue() {
		return current().queue();
	}

	/**
	 * Return the id of the running task.
	 * @return the task id
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static String taskId() {
		return current().taskId();
	}

	/**
	 * Return which attempt this run is (1 for the first).
	 * @return the attempt
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static int attempt() {
		return current().attempt();
	}

	/**
	 * Return whether this worker still holds the running task's claim: {@code false} once
	 * it is known lost.
	 * @return whether the claim is held
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static boolean isClaimHeld() {
		return current().lostReason() == null;
	}

	/**
	 * Throw when the running task's claim is known lost.
	 * @throws TaskClaimLostException when the claim is known lost
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static void ensureClaimHeld() {
		RunningTask task = current();
		String reason = task.lostReason();
		if (reason != null) {
			throw new TaskClaimLostException(task.queue(), task.taskId(), reason);
		}
	}

	private static RunningTask current() {
		RunningTask task = RunningTasks.current();
		if (task == null) {
			throw new IllegalStateException("The current thread runs no queued task; TaskContext is only available"
					+ " inside a @QueuedTask method run by a worker");
		}
		return task;
	}

}
