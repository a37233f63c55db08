package io.github.redislock.support;

import org.jspecify.annotations.Nullable;

/**
 * The task the current worker thread runs: recorded by the queue's workers, read by
 * {@link io.github.redislock.queue.TaskContext}.
 *
 * @since 0.1.0
 */
public final class RunningTasks {

	private static final ThreadLocal<RunningTask> CURRENT = new ThreadLocal<>();

	private RunningTasks() {
	}

	/**
	 * Return the task the current thread runs.
	 * @return the task, or {@code null} outside a task run by a worker
	 */
	public static @Nullable RunningTask current() {
		return CURRENT.get();
	}

	/**
	 * Record that the current thread now runs {@code task}.
	 * @param task the task
	 */
	public static void entered(RunningTask task) {
		CURRENT.set(task);
	}

	/**
	 * Record that the current thread's task run ended.
	 */
	public static void exited() {
		CURRENT.remove();
	}

}
