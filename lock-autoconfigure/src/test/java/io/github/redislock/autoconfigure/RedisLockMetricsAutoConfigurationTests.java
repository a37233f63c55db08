package io.github.redislock.autoconfigure;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.internal.metrics.LockObservationMeterHandler;
import io.github.redislock.internal.metrics.RedisLockMetrics;
import io.github.redislock.internal.metrics.TaskQueueMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockMetricsAutoConfiguration}, without a Redis server.
 */
class RedisLockMetricsAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis
		.runner(AopAutoConfiguration.class, RedisLockAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class,
				RedisLockMetricsAutoConfiguration.class)
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new);

	@Test
	void providesLockAndQueueMetersAndClaimsTheLockObservations() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockMetrics.class)
				.hasSingleBean(TaskQueueMetrics.class)
				.hasSingleBean(LockObservationMeterHandler.class);
			assertThat(context.getBean(MeterRegistry.class).find("redislock.active").gauge()).isNotNull();
		});
	}

	@Test
	void withoutMicrometerThereAreNoMeters() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(RedisLockMetrics.class)
				.doesNotHaveBean(LockObservationMeterHandler.class));
	}

	@Test
	void withoutTheMicrometerModuleThereAreNoMeters() {
		// redis-lock-micrometer is optional for the auto-configuration (the starter
		// brings it).
		this.runner.withClassLoader(new FilteredClassLoader(RedisLockMetrics.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(TaskQueueMetrics.class)
				.doesNotHaveBean(LockObservationMeterHandler.class));
	}

	@Test
	void withoutAMeterRegistryThereAreNoMeters() {
		UnstartedRedis.runner(RedisLockAutoConfiguration.class, RedisLockMetricsAutoConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockMetrics.class));
	}

	@Test
	void aLockTemplateOfTheApplicationsOwnIsMeasuredThroughTheObservableInterface() {
		this.runner
			.withBean("myLocks", RedisLockTemplate.class,
					() -> new DefaultRedisLockTemplate(UnstartedRedis.connectionFactory(), LockSettings.DEFAULTS))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockTemplate.class).hasBean("myLocks");
				assertThat(context).hasSingleBean(RedisLockMetrics.class);
				assertThat(context.getBean(MeterRegistry.class).find("redislock.active").gauge()).isNotNull();
			});
	}

	@Test
	void meterBindersOfTheApplicationsOwnWin() {
		this.runner
			.withBean("myLockMetrics", RedisLockMetrics.class, () -> new RedisLockMetrics(new SimpleMeterRegistry()))
			.withBean("myObservationHandler", LockObservationMeterHandler.class, LockObservationMeterHandler::new)
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisLockMetrics.class).hasBean("myLockMetrics");
				assertThat(context).hasSingleBean(LockObservationMeterHandler.class).hasBean("myObservationHandler");
			});
	}

	@Test
	void disabledRegistersNothing() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisLockMetrics.class)
				.doesNotHaveBean(TaskQueueMetrics.class)
				.doesNotHaveBean(LockObservationMeterHandler.class));
	}

}
