package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.util.function.BiPredicate;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies an advice to the methods an annotation source recognises.
 */
abstract class AnnotatedMethodAdvisor extends AbstractPointcutAdvisor {

	private final transient Advice advice;

	private final transient Pointcut pointcut;

	AnnotatedMethodAdvisor(BiPredicate<Method, @Nullable Class<?>> annotated, Advice advice) {
		this.advice = advice;
		this.pointcut = new StaticMethodMatcherPointcut() {

			@Override
			public boolean matches(Method method, @Nullable Class<?> targetClass) {
				return annotated.test(method, targetClass);
			}

		};
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

}
