package io.github.redislock.autoconfigure;

import io.github.redislock.core.ReactiveRedisLockTemplate;
import io.github.redislock.internal.lock.DefaultReactiveRedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link ReactiveRedisLockTemplate}, when Reactor is on the
 * class path and the lock template is the starter's (the reactive template runs on its
 * asynchronous holds).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass(name = "reactor.core.publisher.Mono")
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
public final class RedisLockReactiveAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ReactiveRedisLockTemplate.class)
	@ConditionalOnBean(DefaultRedisLockTemplate.class)
	DefaultReactiveRedisLockTemplate reactiveRedisLockTemplate(DefaultRedisLockTemplate template) {
		return new DefaultReactiveRedisLockTemplate(template);
	}

}
