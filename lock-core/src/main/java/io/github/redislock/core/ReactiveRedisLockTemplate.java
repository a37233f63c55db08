package io.github.redislock.core;

import java.time.Duration;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs reactive work under a distributed lock, without blocking a thread while waiting:
 * the lock is acquired on subscription and released when the work completes, fails or is
 * cancelled (cancelling while waiting gives up and leaves nothing behind). A bean when
 * Reactor is on the class path. <pre class="code">
 * return locks.execute("orders:" + id, Duration.ofSeconds(3), null,
 *         (token) -&gt; repository.save(order, token));
 * </pre>
 * <p>
 * A hold belongs to its subscription, not to a thread: it is not re-entrant (the same
 * name locked again inside the work waits like any other owner). Inside the work,
 * {@link ReactiveLockContext} describes it.
 *
 * @since 0.1.0
 */
public interface ReactiveRedisLockTemplate {

	/**
	 * Run {@code action} while holding the named lock.
	 * @param <T> the result type
	 * @param name the full lock name
	 * @param waitTime how long to wait for the lock
	 * @param leaseTime fixed lease, or {@code null} for a watchdog-renewed lease
	 * @param action the work, given the hold's fencing token
	 * @return the work's result; fails with {@link LockAcquisitionException} when the
	 * lock is not acquired within {@code waitTime}
	 */
	<T> Mono<T> execute(String name, Duration waitTime, @Nullable Duration leaseTime, Function<Long, Mono<T>> action);

	/**
	 * Run {@code action} while holding the named lock, for as long as the {@code Flux} it
	 * returns emits.
	 * @param <T> the element type
	 * @param name the full lock name
	 * @param waitTime how long to wait for the lock
	 * @param leaseTime fixed lease, or {@code null} for a watchdog-renewed lease
	 * @param action the work, given the hold's fencing token
	 * @return the work's elements; fails with {@link LockAcquisitionException} when the
	 * lock is not acquired within {@code waitTime}
	 */
	<T> Flux<T> executeMany(String name, Duration waitTime, @Nullable Duration leaseTime,
			Function<Long, Flux<T>> action);

}
