package io.github.redislock.autoconfigure;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.admin.DefaultRedisLockAdmin;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockAdminAutoConfiguration}, without a Redis server.
 */
class RedisLockAdminAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis.runner(AopAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class,
			RedisLockAdminAutoConfiguration.class);

	@Test
	void providesTheAdminOverTheLocksAndTheQueue() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(DefaultRedisLockAdmin.class);
			assertThat(context.getBean(RedisLockAdmin.class).queues()).isEmpty();
			assertThat(context.getBean(RedisLockAdmin.class).heldLocks()).isEmpty();
		});
	}

	@Test
	void withoutALockTemplateThereIsNoAdmin() {
		UnstartedRedis.runner(RedisLockAdminAutoConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockAdmin.class));
	}

	@Test
	void anAdminOfTheApplicationsOwnWins() {
		this.runner.withBean("myAdmin", RedisLockAdmin.class, () -> UnstartedRedis.unsupported(RedisLockAdmin.class))
			.run((context) -> assertThat(context).hasSingleBean(RedisLockAdmin.class).hasBean("myAdmin"));
	}

	@Test
	void disabledRegistersNoAdmin() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisLockAdmin.class)
				.doesNotHaveBean(RedisLockTemplate.class));
	}

}
