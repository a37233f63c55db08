package io.github.redislock.aop;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies the {@link QueuedTaskInterceptor} to {@code @QueuedTask} methods.
 */
public final class QueuedTaskAdvisor extends AbstractPointcutAdvisor {

	private final transient QueuedTaskInterceptor interceptor;

	private final transient Pointcut pointcut;

	public QueuedTaskAdvisor(QueuedTaskSource operations, QueuedTaskInterceptor interceptor) {
		this.interceptor = interceptor;
		this.pointcut = new StaticMethodMatcherPointcut() {

			@Override
			public boolean matches(Method method, @Nullable Class<?> targetClass) {
				return operations.isAnnotated(method, targetClass);
			}

		};
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
