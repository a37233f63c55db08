package io.github.redislock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method holding one of {@link #permits()} permits of the distributed semaphore
 * {@code name} + {@code :} + keys: at most that many calls run at once, across all
 * instances. Each permit has its own lease (renewed by the watchdog while the method
 * runs, unless {@link #leaseTime()} is set), so the permit of an instance that crashed
 * comes back when its lease ends. <pre class="code">
 * &#64;DistributedSemaphore(name = "payment-provider", permits = "${payments.max-concurrent:8}")
 * public Receipt charge(Order order) { ... }
 * </pre>
 * <p>
 * Methods returning {@code CompletionStage}, {@code Mono} or {@code Flux} hold the permit
 * until their result completes. Misuse (a bad {@code permits}, duration or expression, a
 * missing fallback) fails the application's start, naming the method.
 *
 * @since 0.1.0
 * @see io.github.redislock.core.RedisSemaphore
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedSemaphore {

	/**
	 * The semaphore's name. Default: {@code SimpleClassName.methodName}.
	 * @return the name
	 */
	String name() default "";

	/**
	 * SpEL expressions over the method's arguments, evaluated per call and joined with
	 * {@code :} after the name. Empty: one semaphore for the method.
	 * @return the key expressions
	 */
	String[] key() default {};

	/**
	 * How many calls may hold a permit at once, at least 1; {@code ${...}} placeholders
	 * are resolved. When instances disagree (a redeploy changed it), each acquisition is
	 * decided by its own caller's count.
	 * @return the permits
	 */
	String permits() default "1";

	/**
	 * How long to wait for a permit, as a duration string. Empty:
	 * {@code redislock.wait-time}.
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * A fixed lease per permit. Empty: {@code redislock.lease-time}, renewed by the
	 * watchdog while the method runs.
	 * @return the lease time
	 */
	String leaseTime() default "";

	/**
	 * What to do when no permit is free within the wait time.
	 * @return the policy
	 */
	OnLockFailure onFailure() default OnLockFailure.THROW;

	/**
	 * A method of the same bean with the same parameters and return type, called instead
	 * when no permit is free (takes precedence over {@link #onFailure()}).
	 * @return the fallback method's name
	 */
	String fallback() default "";

}
