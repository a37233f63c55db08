package io.github.redislock.queue;

import java.lang.reflect.Method;

/**
 * Rewrites the payload of a queued task before its arguments are read: the way to evolve
 * a {@link io.github.redislock.annotation.QueuedTask @QueuedTask} method beyond adding
 * parameters at the end (a parameter renamed into two, a value that changed its form).
 * Declare beans of this type; every one is asked, in their order, for every task a worker
 * of this instance runs, and returns the payload to read (the one it was given when it
 * has nothing to change). A payload is the JSON array of the arguments as the method that
 * enqueued the task wrote them; a migration recognises an old one by its shape (how many
 * arguments, what an argument looks like), so it must leave payloads of the current shape
 * alone. It runs on the worker thread, before the task's method; what it throws fails the
 * attempt like a failure of the method.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface TaskPayloadMigration {

	/**
	 * Return the payload to read for a task.
	 * @param queue the task's queue
	 * @param method the {@code @QueuedTask} method whose arguments the payload is about
	 * to be read as
	 * @param payload the payload: a JSON array of the arguments
	 * @return the payload to read: {@code payload} itself when nothing changes
	 */
	String migrate(String queue, Method method, String payload);

}
