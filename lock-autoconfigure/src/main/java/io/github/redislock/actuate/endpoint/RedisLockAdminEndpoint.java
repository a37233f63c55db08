package io.github.redislock.actuate.endpoint;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.redislock.core.HeldLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.queue.RedisTaskQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code redislock} endpoint with a delete operation that force-unlocks a named lock
 * whoever holds it; registered only when {@code redislock.endpoint.force-unlock-enabled}
 * is true.
 */
@Endpoint(id = "redislock")
public class RedisLockAdminEndpoint extends RedisLockEndpoint {

	private final RedisLockTemplate template;

	public RedisLockAdminEndpoint(Supplier<List<HeldLock>> heldLocks, @Nullable RedisTaskQueue queue,
			Supplier<Collection<String>> queueNames, RedisLockTemplate template) {
		super(heldLocks, queue, queueNames);
		this.template = template;
	}

	/**
	 * Delete the named exclusive lock, whoever holds it; its holder finds it lost.
	 * @param name the full lock name
	 * @return whether there was a lock to delete
	 */
	@DeleteOperation
	public Map<String, Object> forceUnlock(@Selector String name) {
		return Map.of("name", name, "deleted", this.template.getLock(name).forceUnlock());
	}

}
