package io.github.redislock.autoconfigure;

import io.github.redislock.actuate.endpoint.RedisLockEndpoint;
import io.github.redislock.actuate.endpoint.RedisLockEndpointWebExtension;
import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockEndpointAutoConfiguration}, without a Redis server.
 */
class RedisLockEndpointAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis
		.runner(AopAutoConfiguration.class, RedisLockAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class,
				RedisLockAdminAutoConfiguration.class, RedisLockEndpointAutoConfiguration.class)
		.withPropertyValues("management.endpoints.web.exposure.include=redislock");

	@Test
	void providesTheEndpointWhenItIsExposed() {
		this.runner.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedisLockEndpoint.class));
	}

	@Test
	void providesTheWebExtensionThatAnswers503DuringAnOutageWhenExposedOverHttp() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(RedisLockEndpointWebExtension.class));
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=",
					"management.endpoints.jmx.exposure.include=redislock", "spring.jmx.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(RedisLockEndpoint.class)
				.doesNotHaveBean(RedisLockEndpointWebExtension.class));
	}

	@Test
	void anEndpointThatIsNotExposedIsNotCreated() {
		UnstartedRedis
			.runner(RedisLockAutoConfiguration.class, RedisLockAdminAutoConfiguration.class,
					RedisLockEndpointAutoConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockEndpoint.class));
	}

	@Test
	void withoutActuatorThereIsNoEndpoint() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(RedisLockEndpoint.class));
	}

	@Test
	void aLockTemplateOfTheApplicationsOwnKeepsTheEndpointThroughTheObservableInterface() {
		this.runner
			.withBean("myLocks", RedisLockTemplate.class,
					() -> new DefaultRedisLockTemplate(UnstartedRedis.connectionFactory(), LockSettings.DEFAULTS))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockEndpoint.class);
				assertThat(context.getBean(RedisLockEndpoint.class).describe().locks()).isEmpty();
			});
	}

	@Test
	void aLockTemplateThatCannotBeWatchedStillHasTheEndpoint() {
		this.runner
			.withBean("myLocks", RedisLockTemplate.class, () -> UnstartedRedis.unsupported(RedisLockTemplate.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockEndpoint.class);
				assertThat(context.getBean(RedisLockEndpoint.class).describe().locks()).isEmpty();
			});
	}

	@Test
	void anEndpointOfTheApplicationsOwnWins() {
		this.runner
			.withBean("myEndpoint", RedisLockEndpoint.class,
					() -> new RedisLockEndpoint(UnstartedRedis.unsupported(RedisLockAdmin.class)))
			.run((context) -> assertThat(context).hasSingleBean(RedisLockEndpoint.class).hasBean("myEndpoint"));
	}

	@Test
	void disabledRegistersNoEndpoint() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockEndpoint.class));
	}

}
