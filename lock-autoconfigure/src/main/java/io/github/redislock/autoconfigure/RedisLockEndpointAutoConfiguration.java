package io.github.redislock.autoconfigure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.redislock.actuate.endpoint.RedisLockEndpoint.QueueDescriptor;
import io.github.redislock.actuate.endpoint.RedisLockEndpoint;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.queue.QueueDepths;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.internal.queue.RedisTaskQueue;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code redislock} actuator endpoint. Like every endpoint but
 * health, it is not exposed over HTTP unless the application includes it in
 * {@code management.endpoints.web.exposure.include}; its access is read-only by default,
 * so its force-unlock operation is offered only with
 * {@code management.endpoint.redislock.access=unrestricted}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RedisLockAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(RedisLockTemplate.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@ConditionalOnAvailableEndpoint(RedisLockEndpoint.class)
public final class RedisLockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(RedisLockEndpoint.class)
	RedisLockEndpoint redisLockEndpoint(ObjectProvider<RedisLockTemplate> templates,
			ObjectProvider<RedisTaskQueue> queue, ObjectProvider<QueueWorkers> workers) {
		Supplier<Collection<String>> queueNames = () -> {
			QueueWorkers available = workers.getIfAvailable();
			return (available != null) ? available.getQueueNames() : List.of();
		};
		// The held locks of every template that can be watched, the application's own
		// included; force-unlock goes through the primary template.
		Supplier<List<HeldLock>> heldLocks = () -> templates.orderedStream()
			.filter(ObservableLockTemplate.class::isInstance)
			.flatMap((template) -> ((ObservableLockTemplate) template).getHeldLocks().stream())
			.toList();
		RedisTaskQueue taskQueue = queue.getIfAvailable();
		Supplier<Map<String, QueueDescriptor>> queues = () -> {
			Map<String, QueueDescriptor> depths = new LinkedHashMap<>();
			if (taskQueue != null) {
				for (String name : new ArrayList<>(queueNames.get())) {
					QueueDepths queueDepths = taskQueue.depths(name);
					depths.put(name, new QueueDescriptor(queueDepths.ready(), queueDepths.delayed(),
							queueDepths.inflight(), queueDepths.dead(), queueDepths.lagMillis()));
				}
			}
			return depths;
		};
		return new RedisLockEndpoint(heldLocks, queues, templates::getObject);
	}

}
