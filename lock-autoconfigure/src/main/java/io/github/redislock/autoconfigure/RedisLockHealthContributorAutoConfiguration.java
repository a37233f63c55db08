package io.github.redislock.autoconfigure;

import java.util.List;

import io.github.redislock.internal.health.RedisLockHealthIndicator;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.internal.queue.RedisTaskQueue;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code redislock} health indicator
 * ({@code /actuator/health/redislock}) when Spring Boot's health support is on the class
 * path: Redis reached through the starter's own lock engine, the release channel, and the
 * queues of this instance. Turned off with
 * {@code management.health.redislock.enabled=false}; a bean named
 * {@code redislockHealthIndicator} of the application's own replaces it. It needs no
 * endpoint and no task queue.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RedisLockAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class })
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(DefaultRedisLockTemplate.class)
public final class RedisLockHealthContributorAutoConfiguration {

	// (On the method: the condition's class is resolved only once the class condition
	// above found Spring Boot's health support.)
	@Bean
	@ConditionalOnEnabledHealthIndicator("redislock")
	@ConditionalOnMissingBean(name = { "redislockHealthIndicator", "redislockHealthContributor" })
	RedisLockHealthIndicator redislockHealthIndicator(DefaultRedisLockTemplate template,
			ObjectProvider<RedisTaskQueue> queue, ObjectProvider<QueueWorkers> workers,
			RedisLockProperties properties) {
		return new RedisLockHealthIndicator(template, queue.getIfAvailable(), () -> {
			QueueWorkers available = workers.getIfAvailable();
			return (available != null) ? available.getQueueNames() : List.of();
		}, properties.getHealth().getTimeout());
	}

}
