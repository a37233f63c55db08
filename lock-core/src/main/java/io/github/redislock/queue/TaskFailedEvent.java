package io.github.redislock.queue;

import org.springframework.context.ApplicationEvent;

/**
 * Published to the application context when a run of a queued task failed on this
 * instance: the method threw (the task is retried later, or went to the dead letters), or
 * a task whose workers never reported back was found and sent to the dead letters.
 * Delivered on a thread of the starter's, in the order the failures happened, never on a
 * worker thread: a slow listener delays no task.
 *
 * @since 0.1.0
 */
public class TaskFailedEvent extends ApplicationEvent {

	private final String queue;

	private final String taskId;

	private final int attempt;

	private final Throwable error;

	private final boolean deadLettered;

	public TaskFailedEvent(Object source, String queue, String taskId, int attempt, Throwable error,
			boolean deadLettered) {
		super(source);
		this.queue = queue;
		this.taskId = taskId;
		this.attempt = attempt;
		this.error = error;
		this.deadLettered = deadLettered;
	}

	/**
	 * Return the queue of the task.
	 * @return the queue name
	 */
	public String getQueue() {
		return this.queue;
	}

	/**
	 * Return the id of the task.
	 * @return the task id
	 */
	public String getTaskId() {
		return this.taskId;
	}

	/**
	 * Return which run failed (1 for the first).
	 * @return the attempt
	 */
	public int getAttempt() {
		return this.attempt;
	}

	/**
	 * Return what the run threw; for a task whose workers never reported back, an
	 * {@link IllegalStateException} saying so.
	 * @return the failure
	 */
	public Throwable getError() {
		return this.error;
	}

	/**
	 * Return whether the task went to the dead letters (otherwise it is retried).
	 * @return whether the task is dead
	 */
	public boolean isDeadLettered() {
		return this.deadLettered;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[queue=" + this.queue + ", taskId=" + this.taskId + ", attempt="
				+ this.attempt + ", deadLettered=" + this.deadLettered + ", error=" + this.error + "]";
	}

}
