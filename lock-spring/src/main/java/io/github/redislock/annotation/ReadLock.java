package io.github.redislock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding the read side of a distributed read-write lock
 * on Redis: any number of readers on any instances run side by side, while no writer
 * holds the lock.
 * <p>
 * The lock is named like {@link DistributedLock}'s ({@code name} and evaluated
 * {@code key} expressions joined with {@code :}); a {@code @ReadLock} and a
 * {@link WriteLock} with the same name and key use the same read-write lock, the one
 * {@link io.github.redislock.core.RedisLockTemplate#getReadWriteLock(String)} returns.
 * Its Redis keys differ from those of the {@code @DistributedLock} of the same name.
 * Writers are preferred: while a writer waits, new readers wait behind it.
 * <p>
 * Attributes and start-up checks are those of {@link DistributedLock}.
 *
 * <pre class="code">
 * &#64;ReadLock(name = "catalog", key = "#id")
 * public Product find(long id) { ... }
 * </pre>
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ReadLock {

	/**
	 * Name of the lock. Empty: {@code SimpleClassName.methodName} of the declaring class.
	 * @return the lock name
	 */
	String name() default "";

	/**
	 * SpEL expressions over the method's arguments ({@code #orderId}, {@code #p0},
	 * {@code #order.id}), evaluated per call and joined with {@code :}. Only arguments
	 * and their properties can be read: no types, beans, constructors or method calls.
	 * Empty: one lock for the method.
	 * @return the key expressions
	 */
	String[] key() default {};

	/**
	 * How long to wait for the lock, as a duration ({@code "0"}, {@code "500ms"},
	 * {@code "3s"}, {@code "PT1M"}); {@code ${...}} placeholders are resolved. Empty:
	 * {@code redislock.wait-time}, and {@code 0} on a {@code @Scheduled} method (a tick
	 * that finds the lock taken is being run elsewhere; an instance that waited would run
	 * it again once the holder is done). A wait together with {@link #holdAtLeast()} on a
	 * {@code @Scheduled} method stops the start, naming the method.
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * Fixed lease: the lock expires after it even if the method still runs. Empty: the
	 * lease is {@code redislock.lease-time} and a watchdog renews it while the method
	 * runs.
	 * @return the lease time
	 */
	String leaseTime() default "";

	/**
	 * What to do when the lock is not acquired within the wait time. On a
	 * {@code @Scheduled} method it is always {@link OnLockFailure#SKIP} (an exception
	 * would only make the scheduler log an error for a tick another instance runs),
	 * unless a {@code fallback} is given. A skip is counted in {@code redislock.acquire}
	 * with {@code outcome=skipped}, not as a time-out.
	 * @return the failure policy
	 */
	OnLockFailure onFailure() default OnLockFailure.THROW;

	/**
	 * Name of a method of the same bean with the same parameters, called instead of the
	 * method when the lock is not acquired. Takes precedence over {@link #onFailure()}.
	 * @return the fallback method name
	 */
	String fallback() default "";

	/**
	 * Whether to take the lock with the RedLock algorithm over the independent servers in
	 * {@code redislock.redlock.nodes} instead of the application's Redis.
	 * @return whether to use RedLock
	 */
	boolean redlock() default false;

	/**
	 * Minimum hold, as a duration: after the method returns (normally or not) the lock
	 * stays taken until at least this long after it was acquired, timed by Redis. For
	 * {@code @Scheduled} jobs: an instance whose tick fires less than this long after the
	 * first instance acquired the lock (a clock or schedule behind by less than this)
	 * finds it taken and skips the tick; one whose tick fires later than that, with the
	 * first instance done, runs it again. Must not exceed a fixed {@link #leaseTime()}.
	 * Empty: released at return.
	 * @return the minimum hold
	 */
	String holdAtLeast() default "";

	/**
	 * Maximum hold, as a duration: the watchdog stops renewing the lease once the hold
	 * has lasted this long; the lock then expires at the end of its current lease and is
	 * reported lost like any lost lock. Must not be shorter than the lease. Empty:
	 * {@code redislock.max-hold} (no limit by default).
	 * @return the maximum hold
	 */
	String maxHold() default "";

}
