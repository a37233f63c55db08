package io.github.redislock.autoconfigure;

import java.util.List;

import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.metrics.LockObservationMeterHandler;
import io.github.redislock.internal.metrics.RedisLockMetrics;
import io.github.redislock.internal.metrics.TaskQueueMetrics;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.internal.queue.RedisTaskQueue;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Auto-configuration of the lock metrics, when Micrometer and a {@link MeterRegistry} are
 * present.
 *
 * @since 0.1.0
 */
@AutoConfiguration(
		after = { RedisLockAutoConfiguration.class, RedLockAutoConfiguration.class,
				RedisTaskQueueAutoConfiguration.class },
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, RedisLockMetrics.class })
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
public final class RedisLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisLockMetrics redisLockMetrics(MeterRegistry registry, ObjectProvider<RedisLockTemplate> templates) {
		RedisLockMetrics metrics = new RedisLockMetrics(registry);
		// Every lock template that can be watched, whatever its bean's declared type: the
		// starter's, RedLock's and the application's own.
		List<ObservableLockTemplate> observable = templates.orderedStream()
			.filter(ObservableLockTemplate.class::isInstance)
			.map(ObservableLockTemplate.class::cast)
			.toList();
		observable.forEach((template) -> template.setLockObserver(metrics));
		metrics.bindActive(() -> observable.stream().mapToInt(ObservableLockTemplate::getActiveHoldCount).sum());
		return metrics;
	}

	/**
	 * Claims the lock observations in Spring Boot's group of meter observation handlers
	 * (the first handler that supports a context is the only one called), so that they
	 * are not measured a second time: {@link RedisLockMetrics} measures every lock.
	 */
	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	@ConditionalOnMissingBean
	LockObservationMeterHandler redisLockObservationMeterHandler() {
		return new LockObservationMeterHandler();
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
