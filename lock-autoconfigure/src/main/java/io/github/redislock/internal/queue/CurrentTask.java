package io.github.redislock.internal.queue;

import io.github.redislock.queue.TaskClaimLostException;
import org.jspecify.annotations.Nullable;

/**
 * The task the current worker thread runs: what
 * {@link io.github.redislock.queue.TaskContext} reads.
 *
 * @since 0.1.0
 */
public final class CurrentTask {

	private static final ThreadLocal<TaskRun> CURRENT = new ThreadLocal<>();

	private CurrentTask() {
	}

	/**
	 * Return the running task's queue.
	 * @return the queue name
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static String queue() {
		return current().task().queue();
	}

	/**
	 * Return the running task's id.
	 * @return the task id
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static String taskId() {
		return current().task().id();
	}

	/**
	 * Return the running task's attempt.
	 * @return the attempt, 1 for the first
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static int attempt() {
		return current().task().attempt();
	}

	/**
	 * Return whether the running task's claim is still held.
	 * @return whether the claim is held
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static boolean isClaimHeld() {
		return current().isClaimHeld();
	}

	/**
	 * Throw when the running task's claim is known lost.
	 * @throws TaskClaimLostException when the claim is known lost
	 * @throws IllegalStateException outside a task run by a worker
	 */
	public static void ensureClaimHeld() {
		TaskRun run = current();
		String reason = run.lostReason();
		if (reason != null) {
			throw new TaskClaimLostException(run.task().queue(), run.task().id(), reason);
		}
	}

	private static TaskRun current() {
		@Nullable TaskRun run = CURRENT.get();
		if (run == null) {
			throw new IllegalStateException("The current thread runs no queued task; TaskContext is only available"
					+ " inside a @QueuedTask method run by a worker");
		}
		return run;
	}

	static void entered(TaskRun run) {
		CURRENT.set(run);
	}

	static void exited() {
		CURRENT.remove();
	}

}
