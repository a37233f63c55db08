package io.github.redislock.autoconfigure;

import java.util.List;

import io.github.redislock.actuate.endpoint.RedisLockEndpoint;
import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.aop.DistributedLockAdvisor;
import io.github.redislock.internal.aop.QueuedTaskAdvisor;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.internal.metrics.RedisLockMetrics;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.internal.queue.RedisTaskQueue;
import io.github.redislock.queue.TaskQueue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's auto-configurations without a Redis server (a connection factory that is
 * never asked for a connection): what they provide, and how they back off.
 */
class AutoConfigurationBackOffTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
				RedisLockAnnotationAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class,
				RedisLockMetricsAutoConfiguration.class, RedisLockEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=redislock")
		.withBean("redisConnectionFactory", RedisConnectionFactory.class,
				AutoConfigurationBackOffTests::unusedConnectionFactory);

	/**
	 * An implementation of the application's own whose methods are never called: the
	 * tests are about which beans the starter adds around it.
	 */
	private static <T> T unsupported(Class<T> type) {
		return type.cast(java.lang.reflect.Proxy.newProxyInstance(AutoConfigurationBackOffTests.class.getClassLoader(),
				new Class<?>[] { type }, (proxy, method, args) -> switch (method.getName()) {
					case "toString" -> type.getSimpleName() + " of the application";
					case "hashCode" -> System.identityHashCode(proxy);
					case "equals" -> proxy == args[0];
					default -> throw new UnsupportedOperationException(method.getName());
				}));
	}

	/** Points at a port nobody listens on; nothing here connects. */
	private static LettuceConnectionFactory unusedConnectionFactory() {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1));
	}

	@Test
	void locksQueueMetricsAndEndpointWithEveryOptionalDependency() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.hasSingleBean(TaskQueue.class)
				.hasSingleBean(QueueWorkers.class)
				.hasSingleBean(RedisLockMetrics.class)
				.hasSingleBean(RedisLockEndpoint.class);
		});
	}

	@Test
	void withoutJacksonLocksWorkAndTheQueueBacksOff() {
		this.runner.withClassLoader(new FilteredClassLoader(JsonMapper.class)).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLockTemplate.class);
			assertThat(context).doesNotHaveBean(TaskQueue.class).doesNotHaveBean(QueueWorkers.class);
		});
	}

	@Test
	void withoutMicrometerThereAreNoMeters() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(RedisLockMetrics.class));
	}

	@Test
	void withoutAMeterRegistryBeanThereAreNoMeters() {
		this.runner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockMetrics.class));
	}

	@Test
	void withoutActuatorThereIsNoEndpoint() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(RedisLockEndpoint.class));
	}

	@Test
	void twoConnectionFactoriesWithoutAPrimaryOneMakeEverythingBackOff() {
		this.runner
			.withBean("otherConnectionFactory", RedisConnectionFactory.class,
					AutoConfigurationBackOffTests::unusedConnectionFactory)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisLockTemplate.class)
				.doesNotHaveBean(TaskQueue.class));
	}

	@Test
	void ofTwoConnectionFactoriesThePrimaryOneIsUsed() {
		this.runner
			.withBean("primaryConnectionFactory", RedisConnectionFactory.class,
					AutoConfigurationBackOffTests::unusedConnectionFactory, (definition) -> definition.setPrimary(true))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.hasSingleBean(TaskQueue.class));
	}

	@Test
	void aUserRedisTaskQueueIsTheOneTheWorkersUse() {
		this.runner
			.withBean("myQueue", RedisTaskQueue.class,
					() -> new RedisTaskQueue(unusedConnectionFactory(), new JsonMapper(), "mine"))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(TaskQueue.class).hasBean("myQueue");
				assertThat(context).hasSingleBean(QueueWorkers.class);
			});
	}

	@Test
	void aUserTaskQueueOfAnotherKindFailsStartWithQueuedTasksNamingWhy() {
		this.runner.withBean("myQueue", TaskQueue.class, () -> unsupported(TaskQueue.class))
			.withBean("mailer", Mailer.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Bean 'mailer'")
				.hasMessageContaining("TaskQueue bean 'myQueue'")
				.hasMessageContaining("is not a RedisTaskQueue")
				.hasMessageNotContaining("no RedisConnectionFactory"));
	}

	@Test
	void aUserTaskQueueOfAnotherKindIsFineWithoutQueuedTasks() {
		this.runner.withBean("myQueue", TaskQueue.class, () -> unsupported(TaskQueue.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(QueueWorkers.class));
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
	void invalidPropertyFailsStartNamingItTheSpringBootWay(String setting, String property, String reason) {
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

	@Test
	void aUserLockTemplateKeepsMetricsAndEndpointThroughTheObservableInterface() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean("myLocks", RedisLockTemplate.class,
					() -> new DefaultRedisLockTemplate(unusedConnectionFactory(), LockSettings.DEFAULTS))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockTemplate.class).hasBean("myLocks");
				assertThat(context).hasSingleBean(RedisLockMetrics.class).hasSingleBean(RedisLockEndpoint.class);
				assertThat(context.getBean(MeterRegistry.class).find("redislock.active").gauge()).isNotNull();
				assertThat(context.getBean(RedisLockEndpoint.class).describe().locks()).isEmpty();
			});
	}

	@Test
	void aUserLockTemplateThatCannotBeWatchedStillHasTheEndpoint() {
		this.runner.withBean("myLocks", RedisLockTemplate.class, () -> unsupported(RedisLockTemplate.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockEndpoint.class);
				assertThat(context.getBean(RedisLockEndpoint.class).describe().locks()).isEmpty();
			});
	}

	@Test
	void advicePassesOverClassesThatCannotCarryTheAnnotations() {
		this.runner.run((context) -> {
			for (Class<? extends PointcutAdvisor> type : List.of(DistributedLockAdvisor.class,
					QueuedTaskAdvisor.class)) {
				ClassFilter classes = context.getBean(type).getPointcut().getClassFilter();
				assertThat(classes.matches(String.class)).as(type.getSimpleName() + " on String").isFalse();
				assertThat(classes.matches(java.util.ArrayList.class)).isFalse();
				assertThat(classes.matches(Mailer.class)).as(type.getSimpleName() + " on Mailer").isTrue();
			}
		});
	}

	static class Mailer {

		@QueuedTask(queue = "mail")
		public void send(String to) {
		}

	}

}
