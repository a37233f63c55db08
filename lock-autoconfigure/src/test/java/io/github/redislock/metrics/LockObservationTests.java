package io.github.redislock.metrics;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Annotated methods record a {@code redislock.lock.wait} and a
 * {@code redislock.lock.hold} observation, which tracing turns into spans.
 */
@ExtendWith(RedisExtension.class)
class LockObservationTests {

	@Test
	void waitAndHoldAreObservedWithLowCardinalityNames(RedisServer redis) {
		List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				stopped.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		LockApplicationContextRunner.on(redis)
			.withBean(ObservationRegistry.class, () -> registry)
			.withBean(Invoices.class)
			.run((context) -> {
				String id = UUID.randomUUID().toString();
				context.getBean(Invoices.class).issue(id);
				assertThat(stopped).extracting(Observation.Context::getName)
					.containsExactly("redislock.lock.wait", "redislock.lock.hold");
				Observation.Context wait = stopped.get(0);
				assertThat(wait.getLowCardinalityKeyValue("name").getValue()).isEqualTo("invoices");
				assertThat(wait.getLowCardinalityKeyValue("type").getValue()).isEqualTo("exclusive");
				assertThat(wait.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("acquired");
				assertThat(wait.getHighCardinalityKeyValue("lock").getValue()).isEqualTo("invoices:" + id);
			});
	}

	@Test
	void withBootsMeterObservationHandlerOneAcquisitionIsOneTimerFamily(RedisServer redis) {
		LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, RedisLockMetricsAutoConfiguration.class))
			.withBean(Invoices.class)
			.run((context) -> {
				context.getBean(Invoices.class).issue(UUID.randomUUID().toString());
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(
						meters.get("redislock.acquire").tags("name", "invoices", "outcome", "acquired").timer().count())
					.isEqualTo(1);
				assertThat(meters.get("redislock.held").tags("name", "invoices").timer().count()).isEqualTo(1);
				assertThat(meters.getMeters()).extracting((meter) -> meter.getId().getName())
					.as("the wait and the hold are each measured once, by redislock.acquire and redislock.held")
					.noneMatch((name) -> name.startsWith("redislock.lock."));
			});
	}

	static class Invoices {

		@DistributedLock(name = "invoices", key = "#id", waitTime = "0")
		public void issue(String id) {
		}

	}

}
