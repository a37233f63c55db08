package io.github.redislock.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockHealthContributorAutoConfiguration}, without a Redis server.
 */
class RedisLockHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis.runner(AopAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class,
			RedisLockHealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class);

	@Test
	void contributesTheIndicatorAsRedislock() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasBean("redislockHealthIndicator");
			assertThat(context.getBean("redislockHealthIndicator")).isInstanceOf(HealthIndicator.class);
			assertThat(context.getBean(HealthContributorRegistry.class).getContributor("redislock")).isNotNull();
		});
	}

	@Test
	void locksAloneWithoutTheQueueOrTheEndpointHaveTheIndicator() {
		UnstartedRedis
			.runner(RedisLockAutoConfiguration.class, RedisLockHealthContributorAutoConfiguration.class,
					HealthContributorRegistryAutoConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().hasBean("redislockHealthIndicator"));
	}

	@Test
	void withoutSpringBootHealthThereIsNoIndicator() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health."))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("redislockHealthIndicator"));
	}

	@Test
	void managementHealthRedislockEnabledFalseTurnsItOff() {
		this.runner.withPropertyValues("management.health.redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("redislockHealthIndicator"));
	}

	@Test
	void managementHealthDefaultsEnabledFalseTurnsItOff() {
		this.runner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("redislockHealthIndicator"));
	}

	@Test
	void disabledStarterHasNoIndicator() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("redislockHealthIndicator"));
	}

	@Test
	void anIndicatorOfTheApplicationsOwnWins() {
		HealthIndicator own = () -> org.springframework.boot.health.contributor.Health.up().build();
		this.runner.withBean("redislockHealthIndicator", HealthIndicator.class, () -> own)
			.run((context) -> assertThat(context.getBean("redislockHealthIndicator")).isSameAs(own));
	}

	@Test
	void aLockTemplateOfTheApplicationsOwnThatIsNotTheStartersHasNoIndicator() {
		this.runner
			.withBean("myLocks", io.github.redislock.core.RedisLockTemplate.class,
					() -> UnstartedRedis.unsupported(io.github.redislock.core.RedisLockTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("redislockHealthIndicator"));
	}

}
