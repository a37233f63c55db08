package io.github.redislock.actuate.endpoint;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.redislock.core.HeldLock;
import io.github.redislock.queue.QueueDepths;
import io.github.redislock.queue.RedisTaskQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code redislock}: the locks this instance holds (name, held for,
 * lease left, fencing token) and the depths of each queue it handles.
 */
@Endpoint(id = "redislock")
public class RedisLockEndpoint {

	private final Supplier<List<HeldLock>> heldLocks;

	private final @Nullable RedisTaskQueue queue;

	private final Supplier<Collection<String>> queueNames;

	public RedisLockEndpoint(Supplier<List<HeldLock>> heldLocks, @Nullable RedisTaskQueue queue,
			Supplier<Collection<String>> queueNames) {
		this.heldLocks = heldLocks;
		this.queue = queue;
		this.queueNames = queueNames;
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
	 * What the endpoint shows.
	 *
	 * @param locks the locks held by this instance
	 * @param queues the depths of the queues this instance handles
	 */
	public record RedisLockDescriptor(List<HeldLock> locks, Map<String, QueueDepths> queues) {
	}

}
