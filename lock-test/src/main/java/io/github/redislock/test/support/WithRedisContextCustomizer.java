package io.github.redislock.test.support;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Points one Spring test context at the shared test Redis: a
 * {@link DataRedisConnectionDetails} bean (which Spring Boot prefers to the
 * {@code spring.data.redis.*} properties, as it does for {@code @ServiceConnection}), the
 * host and port as properties, and a {@link TaskQueueTestSupport} bean. All are equal, so
 * contexts that differ in nothing else are shared through the context cache.
 */
final class WithRedisContextCustomizer implements ContextCustomizer {

	static final String PROPERTY_SOURCE = "redislockTestRedis";

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		TestRedis redis = TestRedis.shared();
		Map<String, Object> properties = new LinkedHashMap<>(redis.springProperties());
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, properties));
		DataRedisConnectionDetails.Standalone standalone = DataRedisConnectionDetails.Standalone.of(redis.host(),
				redis.port());
		context.getBeanFactory()
			.registerSingleton("redislockTestRedisConnectionDetails", new DataRedisConnectionDetails() {

				@Override
				public DataRedisConnectionDetails.Standalone getStandalone() {
					return standalone;
				}

				@Override
				public String toString() {
					return "test Redis " + redis;
				}

			});
		context.getBeanFactory().registerSingleton("taskQueueTestSupport", new TaskQueueTestSupport(context));
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other != null && other.getClass() == getClass();
	}

	@Override
	public int hashCode() {
		return getClass().hashCode();
	}

}
