package io.github.redislock.internal.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.function.BiPredicate;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Applies an advice to the methods an annotation source recognises.
 */
abstract class AnnotatedMethodAdvisor extends AbstractPointcutAdvisor {

	private final transient Advice advice;

	private final transient Pointcut pointcut;

	/**
	 * @param annotations the annotations the source looks for: classes that cannot carry
	 * any of them (JDK and other {@code java.} types, say) are passed over without
	 * looking at their methods
	 * @param annotated whether a method carries one
	 * @param advice what to apply
	 */
	AnnotatedMethodAdvisor(Collection<Class<? extends Annotation>> annotations,
			BiPredicate<Method, @Nullable Class<?>> annotated, Advice advice) {
		this.advice = advice;
		StaticMethodMatcherPointcut pointcut = new StaticMethodMatcherPointcut() {

			@Override
			public boolean matches(Method method, @Nullable Class<?> targetClass) {
				return annotated.test(method, targetClass);
			}

		};
		pointcut.setClassFilter((type) -> AnnotationUtils.isCandidateClass(type, annotations));
		this.pointcut = pointcut;
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
