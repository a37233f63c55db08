package io.github.redislock.test.support;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Connects the Spring test contexts of {@link WithRedis} test classes (and their
 * {@code @Nested} classes) to the shared test Redis.
 */
class WithRedisContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return TestContextAnnotationUtils.hasAnnotation(testClass, WithRedis.class) ? new WithRedisContextCustomizer()
				: null;
	}

}
