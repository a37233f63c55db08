package io.github.redislock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Calling the annotated method does not run it: the call is enqueued in a Redis task
 * queue, and a worker on some instance of the application runs the method body later with
 * the same arguments. Delivery is at-least-once, so the method must be idempotent.
 * <p>
 * The method must return {@code void}. Arguments are stored as JSON (written with the
 * application's JSON mapper) and read back by the method's declared parameter types. A
 * call inside a transaction is enqueued when the transaction commits, and not at all if
 * it rolls back.
 *
 * <pre class="code">
 * &#64;QueuedTask(queue = "confirmations", id = "#orderId", delay = "30s")
 * public void sendConfirmation(long orderId) { ... }
 * </pre>
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface QueuedTask {

	/**
	 * Name of the queue. Empty: {@code SimpleClassName.methodName} of the declaring
	 * class.
	 * @return the queue name
	 */
	String queue() default "";

	/**
	 * SpEL expression over the arguments giving the task id, which deduplicates waiting
	 * tasks. Empty: a digest of the serialized arguments.
	 * @return the id expression
	 */
	String id() default "";

	/**
	 * How long after the call the task is due: a duration ({@code "30s"}, {@code "PT5M"},
	 * {@code ${...}}), or a SpEL expression over the arguments starting with {@code #}
	 * that gives a {@link java.time.Duration} ({@code "#reminderDelay"}). Empty: at once
	 * (or at {@link #runAt()}).
	 * @return the delay
	 */
	String delay() default "";

	/**
	 * SpEL expression over the arguments giving when the task is due: an
	 * {@link java.time.Instant} or epoch milliseconds (a {@code Number}); a time in the
	 * past makes it due at once. Cannot be combined with {@link #delay()}. Empty: see
	 * {@link #delay()}.
	 * @return the due-time expression
	 * @since 0.1.0
	 */
	String runAt() default "";

	/**
	 * What a call does when a task with the same id is already waiting.
	 * @return the duplicate policy
	 */
	OnDuplicate onDuplicate() default OnDuplicate.KEEP;

	/**
	 * Runs of a task of this queue before a failing one goes to the dead letters (a
	 * number, {@code ${...}} resolved). Empty: {@code redislock.queue.max-attempts}.
	 * @return the most attempts
	 * @since 0.1.0
	 */
	String maxAttempts() default "";

	/**
	 * Pause before the first retry of a failed task of this queue, as a duration
	 * ({@code ${...}} resolved); further pauses grow by
	 * {@code redislock.queue.backoff.multiplier} up to
	 * {@code redislock.queue.backoff.max}. Empty:
	 * {@code redislock.queue.backoff.initial}.
	 * @return the first pause
	 * @since 0.1.0
	 */
	String backoff() default "";

	/**
	 * Exception types (subclasses included) that are never retried: a run that fails with
	 * one sends its task to the dead letters at once.
	 * @return the exception types
	 * @since 0.1.0
	 */
	Class<? extends Throwable>[] noRetryFor() default {};

	/**
	 * How long a claimed task of this queue stays invisible to other workers without a
	 * renewal, as a duration ({@code ${...}} resolved). Empty:
	 * {@code redislock.queue.visibility-timeout}.
	 * @return the visibility timeout
	 * @since 0.1.0
	 */
	String visibilityTimeout() default "";

	/**
	 * Concurrent runs of this queue's tasks on this instance (a number, {@code ${...}}
	 * resolved; {@code 0}: this instance only enqueues). Empty:
	 * {@code redislock.queue.workers}.
	 * @return the number of workers
	 * @since 0.1.0
	 */
	String workers() default "";

	/**
	 * A window after a task of an id ran (a duration such as {@code "1h"}, {@code ${...}}
	 * resolved): while a task of the id runs, and until this long after it started and
	 * after it succeeded, a call with the same id is not enqueued (it returns normally).
	 * The window's mark expires by itself; a task that ends in the dead letters leaves
	 * none. This is at-least-once delivery plus a window, not exactly-once: a run that is
	 * cut off and run again still runs twice. Empty: no window (an id is deduplicated
	 * only while a task of it waits).
	 * @return the dedup window
	 * @since 0.1.0
	 */
	String dedupFor() default "";

	/**
	 * The version of this method's parameters, recorded with each task it enqueues (with
	 * a digest of the parameter types). Raise it when the parameters change in a way that
	 * an earlier version cannot read (one added at the end, say). During a rolling deploy
	 * an instance of an earlier version then hands a task of a later version back to
	 * waiting without spending an attempt, so that an instance of the later version runs
	 * it; a payload of an earlier version that this method cannot read even after the
	 * application's {@link io.github.redislock.queue.TaskPayloadMigration
	 * TaskPayloadMigration}s goes to the dead letters at once (reason
	 * {@code payload-mismatch}). See "Evolving a task" in {@code docs/queue.md}.
	 * @return the version, 1 or more
	 * @since 0.1.0
	 */
	int version() default 1;

}
