package io.github.redislock.autoconfigure;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.internal.dashboard.DashboardRoutes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.web.servlet.function.RouterFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockDashboardAutoConfiguration}, without a Redis server.
 */
@ExtendWith(OutputCaptureExtension.class)
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
	void notWithoutTheDashboardModule() {
		// redis-lock-dashboard is optional for the auto-configuration (the starter brings
		// it).
		this.runner.withPropertyValues("redislock.dashboard.enabled=true")
			.withClassLoader(new FilteredClassLoader(DashboardRoutes.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RouterFunction.class));
	}

	@Test
	void onAReactiveApplicationAnEnabledDashboardSaysThatItNeedsSpringMvc(CapturedOutput output) {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
					RedisTaskQueueAutoConfiguration.class, RedisLockAdminAutoConfiguration.class,
					RedisLockDashboardAutoConfiguration.class))
			.withBean(org.springframework.data.redis.connection.RedisConnectionFactory.class,
					UnstartedRedis::connectionFactory)
			.withPropertyValues("redislock.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RouterFunction.class)
				.hasSingleBean(RedisLockDashboardAutoConfiguration.DashboardNotServed.class));
		assertThat(output).contains("redislock.dashboard.enabled=true is ignored")
			.contains("the dashboard needs Spring MVC");
	}

	@Test
	void aServletApplicationWithTheDashboardLogsNoSuchLine(CapturedOutput output) {
		this.runner.withPropertyValues("redislock.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("redislock.dashboard.enabled=true is ignored");
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
