package io.github.redislock.autoconfigure;

import io.github.redislock.actuate.endpoint.RedisLockEndpoint;
import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.metrics.RedisLockMetrics;
import io.github.redislock.queue.QueueWorkers;
import io.github.redislock.queue.RedisTaskQueue;
import io.github.redislock.queue.TaskQueue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
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
		this.runner.withBean("myQueue", TaskQueue.class,
				() -> (TaskQueue) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { TaskQueue.class }, (proxy, method, args) -> {
							throw new UnsupportedOperationException(method.getName());
						}))
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
		this.runner.withBean("myQueue", TaskQueue.class,
				() -> (TaskQueue) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { TaskQueue.class }, (proxy, method, args) -> {
							throw new UnsupportedOperationException(method.getName());
						}))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(QueueWorkers.class));
	}

	static class Mailer {

		@QueuedTask(queue = "mail")
		public void send(String to) {
		}

	}

}
