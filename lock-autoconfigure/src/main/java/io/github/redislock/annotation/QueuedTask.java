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
	 * How long after the call the task is due, as a duration ({@code "30s"},
	 * {@code "PT5M"}, {@code ${...}}). Empty: at once.
	 * @return the delay
	 */
	String delay() default "";

	/**
	 * What a call does when a task with the same id is already waiting.
	 * @return the duplicate policy
	 */
	OnDuplicate onDuplicate() default OnDuplicate.KEEP;

}
