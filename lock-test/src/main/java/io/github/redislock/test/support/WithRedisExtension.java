package io.github.redislock.test.support;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The JUnit side of {@link WithRedis}: flushes the shared Redis before the annotated
 * class (not before its {@code @Nested} classes) and resolves {@link TestRedis}
 * parameters.
 */
class WithRedisExtension implements BeforeAllCallback, ParameterResolver {

	@Override
	public void beforeAll(ExtensionContext context) {
		WithRedis annotation = AnnotatedElementUtils.findMergedAnnotation(context.getRequiredTestClass(),
				WithRedis.class);
		if (annotation != null && annotation.flushBeforeClass()) {
			TestRedis.shared().flushAll();
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == TestRedis.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return TestRedis.shared();
	}

}
