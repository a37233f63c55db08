package io.github.redislock.actuate.endpoint;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.redislock.core.HeldLock;
import io.github.redislock.core.RedisLockTemplate;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * Actuator endpoint {@code redislock}: the locks this instance holds (name, held for,
 * lease left, fencing token) and the depths of each queue it handles; and a delete
 * operation that force-unlocks a named lock whoever holds it.
 * <p>
 * On Spring Boot's endpoint access model the endpoint is read-only by default: the delete
 * operation is offered only once an operator opens it with
 * {@code management.endpoint.redislock.access=unrestricted} (or
 * {@code management.endpoints.access.default}).
 *
 * @since 0.1.0
 */
@Endpoint(id = "redislock", defaultAccess = Access.READ_ONLY)
public class RedisLockEndpoint {

	private final Supplier<List<HeldLock>> heldLocks;

	private final Supplier<Map<String, QueueDescriptor>> queues;

	private final Supplier<RedisLockTemplate> template;

	/**
	 * Create the endpoint.
	 * @param heldLocks the locks this instance holds
	 * @param queues the depths of the queues this instance handles, by queue name
	 * @param template the template that force-unlocks, looked up when asked to
	 */
	public RedisLockEndpoint(Supplier<List<HeldLock>> heldLocks, Supplier<Map<String, QueueDescriptor>> queues,
			Supplier<RedisLockTemplate> template) {
		this.heldLocks = heldLocks;
		this.queues = queues;
		this.template = template;
	}

	@ReadOperation
	public RedisLockDescriptor describe() {
		return new RedisLockDescriptor(this.heldLocks.get(), this.queues.get());
	}

	/**
	 * Delete the named exclusive lock, whoever holds it; its holder finds it lost.
	 * Offered only with unrestricted access to this endpoint.
	 * @param name the full lock name
	 * @return the name and whether there was a lock to delete
	 */
	@DeleteOperation
	public Map<String, Object> forceUnlock(@Selector String name) {
		return Map.of("name", name, "deleted", this.template.get().getLock(name).forceUnlock());
	}

	/**
	 * What the endpoint shows.
	 *
	 * @param locks the locks held by this instance
	 * @param queues the depths of the queues this instance handles
	 */
	public record RedisLockDescriptor(List<HeldLock> locks, Map<String, QueueDescriptor> queues) {
	}

	/**
	 * One queue's depths.
	 *
	 * @param ready tasks due now
	 * @param delayed tasks due later
	 * @param inflight tasks being run by a worker
	 * @param dead tasks in the dead letters
	 * @param lagMillis how long the oldest due task has waited
	 */
	public record QueueDescriptor(long ready, long delayed, long inflight, long dead, long lagMillis) {
	}

}
