package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.core.OnLockLost;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockAutoConfiguration}, without a Redis server.
 */
class RedisLockAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis.runner(RedisLockAutoConfiguration.class);

	@Test
	void providesATemplateOnTheApplicationsConnectionFactory() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLockTemplate.class);
			assertThat(context.getBean(DefaultRedisLockTemplate.class).getConnectionFactory())
				.isSameAs(context.getBean(RedisConnectionFactory.class));
		});
	}

	@Test
	void propertiesConfigureTheTemplate() {
		this.runner
			.withPropertyValues("redislock.key-prefix=app1", "redislock.lease-time=5s", "redislock.on-lock-lost=log")
			.run((context) -> {
				DefaultRedisLockTemplate template = context.getBean(DefaultRedisLockTemplate.class);
				assertThat(template.getSettings().keyPrefix()).isEqualTo("app1");
				assertThat(template.getSettings().leaseTime()).isEqualTo(Duration.ofSeconds(5));
				assertThat(template.getSettings().onLockLost()).isEqualTo(OnLockLost.LOG);
			});
	}

	@Test
	void aTemplateOfTheApplicationsOwnWins() {
		this.runner
			.withBean("myLocks", RedisLockTemplate.class, () -> UnstartedRedis.unsupported(RedisLockTemplate.class))
			.run((context) -> assertThat(context).hasSingleBean(RedisLockTemplate.class)
				.hasBean("myLocks")
				.doesNotHaveBean(DefaultRedisLockTemplate.class));
	}

	@Test
	void disabledRegistersNothing() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisLockTemplate.class)
				.doesNotHaveBean(RedisLockProperties.class));
	}

	@Test
	void withoutAConnectionFactoryThereIsNoTemplate() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockTemplate.class));
	}

	@Test
	void withoutSpringDataRedisItBacksOff() {
		this.runner.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockTemplate.class));
	}

	@Test
	void twoConnectionFactoriesWithoutAPrimaryOneMakeItBackOff() {
		this.runner.withBean("otherConnectionFactory", RedisConnectionFactory.class, UnstartedRedis::connectionFactory)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockTemplate.class));
	}

	@Test
	void ofTwoConnectionFactoriesThePrimaryOneIsUsed() {
		this.runner
			.withBean("primaryConnectionFactory", RedisConnectionFactory.class, UnstartedRedis::connectionFactory,
					(definition) -> definition.setPrimary(true))
			.run((context) -> assertThat(context.getBean(DefaultRedisLockTemplate.class).getConnectionFactory())
				.isSameAs(context.getBean("primaryConnectionFactory")));
	}

	@Test
	void withoutLettuceATemplateOnJedisIsCreated() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.lettuce"))
			.withBean(RedisConnectionFactory.class,
					() -> new JedisConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1)))
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedisLockTemplate.class));
	}

	@Test
	void replicaAcknowledgementWithAnotherClientFailsStartNamingTheProperty() {
		// A connection factory of another client; the failure comes before any call.
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class))
			.withBean(RedisConnectionFactory.class, () -> UnstartedRedis.unsupported(RedisConnectionFactory.class))
			.withPropertyValues("redislock.min-replicas-acked=1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redislock.min-replicas-acked=1 needs Lettuce")
				.hasMessageContaining("redislock.min-replicas-acked=0"));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			textBlock = """
					redislock.lease-time=10ms              | redislock.lease-time              | must be at least PT0.03S
					redislock.max-hold=5s                  | redislock.max-hold                | must not be shorter than redislock.lease-time
					redislock.queue.workers=-1             | redislock.queue.workers           | must not be negative
					redislock.queue.batch-size=0           | redislock.queue.batch-size        | must be positive
					redislock.queue.backoff.multiplier=0.5 | redislock.queue.backoff.multiplier | must be at least 1
					redislock.redlock.clock-drift-factor=1 | redislock.redlock.clock-drift-factor | must be in [0, 0.5)
					redislock.key-prefix=a{b}              | redislock.key-prefix              | must not contain
					""")
	void anInvalidPropertyFailsStartNamingItTheSpringBootWay(String setting, String property, String reason) {
		this.runner.withPropertyValues(setting).run((context) -> {
			assertThat(context).hasFailed();
			Throwable cause = context.getStartupFailure();
			while (cause != null && !(cause instanceof InvalidConfigurationPropertyValueException)) {
				cause = cause.getCause();
			}
			assertThat(cause).as("InvalidConfigurationPropertyValueException in " + context.getStartupFailure())
				.isInstanceOf(InvalidConfigurationPropertyValueException.class);
			InvalidConfigurationPropertyValueException invalid = (InvalidConfigurationPropertyValueException) cause;
			assertThat(invalid.getName()).isEqualTo(property);
			assertThat(invalid.getReason()).contains(reason);
		});
	}

	@Test
	void validPropertiesStart() {
		this.runner
			.withPropertyValues("redislock.lease-time=1s", "redislock.max-hold=1s", "redislock.queue.workers=0",
					"redislock.wait-time=0")
			.run((context) -> assertThat(context).hasNotFailed());
	}

}
