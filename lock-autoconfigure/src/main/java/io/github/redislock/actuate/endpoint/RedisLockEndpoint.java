package io.github.redislock.actuate.endpoint;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.redislock.core.HeldLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.queue.QueueDepths;
import io.github.redislock.queue.RedisTaskQueue;
import org.jspecify.annotations.Nullable;

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
 */
@Endpoint(id = "redislock", defaultAccess = Access.READ_ONLY)
public class RedisLockEndpoint {

	private final Supplier<List<HeldLock>> heldLocks;

	private final @Nullable RedisTaskQueue queue;

	private final Supplier<Collection<String>> queueNames;

	private final Supplier<RedisLockTemplate> template;

	/**
	 * Create the endpoint.
	 * @param heldLocks the locks this instance holds
	 * @param queue the task queue, when there is one
	 * @param queueNames the queues this instance handles
	 * @param template the template that force-unlocks, looked up when asked to
	 */
	public RedisLockEndpoint(Supplier<List<HeldLock>> heldLocks, @Nullable RedisTaskQueue queue,
			Supplier<Collection<String>> queueNames, Supplier<RedisLockTemplate> template) {
		this.heldLocks = heldLocks;
		this.queue = queue;
		this.queueNames = queueNames;
		this.template = template;
	}

	@ReadOperation
	public RedisLockDescriptor describe() {
		Map<String, QueueDepths> queues = new LinkedHashMap<>();
		if (this.queue != null) {
			for (String name : new ArrayList<>(this.queueNames.get())) {
				queues.put(name, this.queue.depths(name));
			}
		}
		return new RedisLockDescriptor(this.heldLocks.get(), queues);
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
	public record RedisLockDescriptor(List<HeldLock> locks, Map<String, QueueDepths> queues) {
	}

}
