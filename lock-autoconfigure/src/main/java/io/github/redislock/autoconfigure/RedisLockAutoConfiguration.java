package io.github.redislock.autoconfigure;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration of the {@link RedisLockTemplate} on the application's
 * {@link RedisConnectionFactory}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedisLockAutoConfiguration {

	@Bean
	@Primary
	@ConditionalOnMissingBean(RedisLockTemplate.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	DefaultRedisLockTemplate redisLockTemplate(RedisConnectionFactory connectionFactory, RedisLockProperties properties,
			ApplicationEventPublisher eventPublisher, Environment environment) {
		LockSettings settings = new LockSettings(properties.getKeyPrefix(), properties.getLeaseTime(),
				properties.getOnLockLost(), properties.getMinReplicasAcked(), properties.getReplicaAckTimeout(),
				properties.getMaxHold());
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(connectionFactory, settings);
		template.setLockLostListener(eventPublisher::publishEvent);
		template.setInterruptOnLockLost(properties.isInterruptOnLockLost());
		template.setApplicationName(environment.getProperty("spring.application.name", ""));
		return template;
	}

}
