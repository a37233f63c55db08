package io.github.redislock.autoconfigure;

import java.util.List;

import io.github.redislock.core.DefaultRedisLockTemplate;
import io.github.redislock.core.RedLockTemplate;
import io.github.redislock.metrics.RedisLockMetrics;
import io.github.redislock.metrics.TaskQueueMetrics;
import io.github.redislock.queue.QueueWorkers;
import io.github.redislock.queue.RedisTaskQueue;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the lock metrics, when Micrometer and a {@link MeterRegistry} are
 * present.
 */
@AutoConfiguration(
		after = { RedisLockAutoConfiguration.class, RedLockAutoConfiguration.class,
				RedisTaskQueueAutoConfiguration.class },
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
public final class RedisLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisLockMetrics redisLockMetrics(MeterRegistry registry, ObjectProvider<DefaultRedisLockTemplate> templates,
			ObjectProvider<RedLockTemplate> redLockTemplates) {
		RedisLockMetrics metrics = new RedisLockMetrics(registry);
		templates.orderedStream().forEach((template) -> {
			template.setLockObserver(metrics);
			metrics.bindActive(template::getActiveHoldCount);
		});
		redLockTemplates.orderedStream().forEach((template) -> template.setLockObserver(metrics));
		return metrics;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisTaskQueue.class)
	TaskQueueMetrics redisTaskQueueMetrics(MeterRegistry registry, RedisTaskQueue queue,
			ObjectProvider<QueueWorkers> workers) {
		TaskQueueMetrics metrics = new TaskQueueMetrics(registry, queue, () -> {
			QueueWorkers available = workers.getIfAvailable();
			return (available != null) ? available.getQueueNames() : List.of();
		});
		queue.setQueueObserver(metrics);
		return metrics;
	}

}
