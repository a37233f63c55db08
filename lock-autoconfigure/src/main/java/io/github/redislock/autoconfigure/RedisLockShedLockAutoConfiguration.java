package io.github.redislock.autoconfigure;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.shedlock.RedisLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of ShedLock's {@link LockProvider} on the application's
 * {@link RedisLockTemplate} (the primary one, when RedLock adds another), when
 * {@code redis-lock-shedlock} and ShedLock are on the class path and the application has
 * no {@code LockProvider} of its own: {@code @SchedulerLock} jobs then take the engine's
 * locks (ShedLock's {@code @EnableSchedulerLock} is still the application's to declare).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RedisLockAutoConfiguration.class, RedLockAutoConfiguration.class })
@ConditionalOnClass({ LockProvider.class, RedisLockProvider.class })
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
public final class RedisLockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	@ConditionalOnSingleCandidate(RedisLockTemplate.class)
	RedisLockProvider redisLockProvider(RedisLockTemplate redisLockTemplate) {
		return new RedisLockProvider(redisLockTemplate);
	}

}
