package io.github.redislock.autoconfigure;

import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.admin.DefaultRedisLockAdmin;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.internal.queue.RedisTaskQueue;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link RedisLockAdmin} behind the {@code redislock} actuator
 * endpoint and the dashboard: the held locks of every lock template that can be watched,
 * and the queues this instance handles.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RedisLockAutoConfiguration.class, RedLockAutoConfiguration.class,
		RedisTaskQueueAutoConfiguration.class })
@ConditionalOnBean(RedisLockTemplate.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
public final class RedisLockAdminAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisLockAdmin redisLockAdmin(ObjectProvider<RedisLockTemplate> templates, ObjectProvider<RedisTaskQueue> queue,
			ObjectProvider<QueueWorkers> workers) {
		Supplier<Collection<String>> queueNames = () -> {
			QueueWorkers available = workers.getIfAvailable();
			return (available != null) ? available.getQueueNames() : List.of();
		};
		// The held locks of every template that can be watched, the application's own
		// included; holder lookups and force-unlock go through the primary template.
		Supplier<List<HeldLock>> heldLocks = () -> templates.orderedStream()
			.filter(ObservableLockTemplate.class::isInstance)
			.flatMap((template) -> ((ObservableLockTemplate) template).getHeldLocks().stream())
			.toList();
		return new DefaultRedisLockAdmin(heldLocks, queueNames, queue.getIfAvailable(), templates::getObject);
	}

}
