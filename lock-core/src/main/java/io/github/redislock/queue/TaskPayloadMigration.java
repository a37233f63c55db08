package io.github.redislock.queue;

import java.lang.reflect.Method;

/**
 * Rewrites the payload of a queued task before its arguments are read: the way to evolve
 * a {@code @io.github.redislock.annotation.QueuedTask} method (in
 * {@code redis-lock-spring}) beyond adding parameters at the end (a parameter renamed
 * into two, a value that changed its form). Declare beans of this type; every one is
 * asked, in their order, for every task a worker of this instance runs, and returns the
 * payload to read (the one it was given when it has nothing to change). A payload is the
 * JSON array of the arguments as the method that enqueued the task wrote them, and each
 * task records the version of that method ({@code @QueuedTask(version = ...)}): a
 * migration rewrites the payloads of the versions it knows and leaves the others alone (a
 * task enqueued through the plain {@link TaskQueue} API, or before versions were
 * recorded, counts as version 1). It runs on the worker thread, before the task's method;
 * what it throws fails the attempt like a failure of the method.
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
	 * @param version the version of the method the payload was written for (1 when none
	 * was recorded)
	 * @param payload the payload: a JSON array of the arguments (as an earlier migration
	 * left it)
	 * @return the payload to read: {@code payload} itself when nothing changes
	 */
	String migrate(String queue, Method method, int version, String payload);

}
