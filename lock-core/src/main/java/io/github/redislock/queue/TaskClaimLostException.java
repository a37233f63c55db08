package io.github.redislock.queue;

import io.github.redislock.support.Printable;

/**
 * Thrown by {@link TaskContext#ensureClaimHeld()} when the running task's claim is known
 * lost: another worker may be running the same task now.
 *
 * @since 0.1.0
 */
public class TaskClaimLostException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String queue;

	private final String taskId;

	public TaskClaimLostException(String queue, String taskId, String reason) {
		super("Task '" + Printable.of(taskId) + "' of queue '" + Printable.of(queue) + "' lost its claim (" + reason
				+ "); another worker may run it now, and this run's outcome will not be recorded");
		this.queue = queue;
		this.taskId = taskId;
	}

	public String getQueue() {
		return this.queue;
	}

	public String getTaskId() {
		return this.taskId;
	}

}
