package io.github.redislock.test;

import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockReactiveAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Application contexts with Spring Boot's Redis and AOP auto-configuration and the
 * starter's, pointed at a real Redis.
 */
public final class LockApplicationContextRunner {

	private LockApplicationContextRunner() {
	}

	public static ApplicationContextRunner on(RedisServer redis) {
		return unconfigured().withPropertyValues(redis.springProperties());
	}

	/**
	 * Without Redis properties: the test sets {@code spring.data.redis.*} itself.
	 */
	public static ApplicationContextRunner unconfigured() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				AopAutoConfiguration.class, RedisLockAutoConfiguration.class, RedisLockReactiveAutoConfiguration.class,
				RedisLockAnnotationAutoConfiguration.class));
	}

}
