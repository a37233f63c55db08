package io.github.redislock.autoconfigure;

import io.github.redislock.core.ReactiveRedisLockTemplate;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultReactiveRedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockReactiveAutoConfiguration}, without a Redis server.
 */
class RedisLockReactiveAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis.runner(RedisLockAutoConfiguration.class,
			RedisLockReactiveAutoConfiguration.class);

	@Test
	void providesAReactiveTemplateOnTheStartersTemplate() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(ReactiveRedisLockTemplate.class)
			.hasSingleBean(DefaultRedisLockTemplate.class));
	}

	@Test
	void withoutReactorThereIsNoReactiveTemplateAndLocksStay() {
		this.runner.withClassLoader(new FilteredClassLoader("reactor."))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(ReactiveRedisLockTemplate.class));
	}

	@Test
	void aReactiveTemplateOfTheApplicationsOwnWins() {
		this.runner
			.withBean("myReactiveLocks", ReactiveRedisLockTemplate.class,
					() -> UnstartedRedis.unsupported(ReactiveRedisLockTemplate.class))
			.run((context) -> assertThat(context).hasSingleBean(ReactiveRedisLockTemplate.class)
				.hasBean("myReactiveLocks")
				.doesNotHaveBean(DefaultReactiveRedisLockTemplate.class));
	}

	@Test
	void aLockTemplateOfTheApplicationsOwnHasNoReactiveTemplate() {
		this.runner
			.withBean("myLocks", RedisLockTemplate.class, () -> UnstartedRedis.unsupported(RedisLockTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ReactiveRedisLockTemplate.class));
	}

	@Test
	void disabledRegistersNoReactiveTemplate() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ReactiveRedisLockTemplate.class));
	}

}
