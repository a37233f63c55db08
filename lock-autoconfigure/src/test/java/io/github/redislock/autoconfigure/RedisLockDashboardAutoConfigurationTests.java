package io.github.redislock.autoconfigure;

import io.github.redislock.admin.RedisLockAdmin;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.function.RouterFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockDashboardAutoConfiguration}, without a Redis server.
 */
class RedisLockDashboardAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
				RedisTaskQueueAutoConfiguration.class, RedisLockAdminAutoConfiguration.class,
				RedisLockDashboardAutoConfiguration.class))
		.withBean(org.springframework.data.redis.connection.RedisConnectionFactory.class,
				UnstartedRedis::connectionFactory);

	@Test
	void isOffByDefault() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(RedisLockAdmin.class)
			.doesNotHaveBean(RouterFunction.class));
	}

	@Test
	void servesThePageWhenEnabled() {
		this.runner.withPropertyValues("redislock.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RouterFunction.class));
	}

	@Test
	void notInANonWebApplication() {
		UnstartedRedis
			.runner(RedisLockAutoConfiguration.class, RedisLockAdminAutoConfiguration.class,
					RedisLockDashboardAutoConfiguration.class)
			.withPropertyValues("redislock.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RouterFunction.class));
	}

	@Test
	void notWithoutSpringMvc() {
		this.runner.withPropertyValues("redislock.dashboard.enabled=true")
			.withClassLoader(new FilteredClassLoader(RouterFunction.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RouterFunction.class));
	}

	@Test
	void disabledStarterServesNoPage() {
		this.runner.withPropertyValues("redislock.dashboard.enabled=true", "redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RouterFunction.class));
	}

	@Test
	void invalidPathStopsTheStartNamingTheProperty() {
		this.runner.withPropertyValues("redislock.dashboard.enabled=true", "redislock.dashboard.path=ops/")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("redislock.dashboard.path")
				.hasStackTraceContaining("must start with '/'"));
	}

}
