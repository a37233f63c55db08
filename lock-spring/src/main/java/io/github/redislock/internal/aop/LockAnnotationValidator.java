package io.github.redislock.internal.aop;

import java.util.function.Supplier;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Checks the lock annotations of every bean as it is created, so that a mistake stops the
 * application at start-up instead of failing the first call.
 *
 * @since 0.1.0
 */
public final class LockAnnotationValidator implements BeanPostProcessor {

	private final LockOperationSource operations;

	private final Supplier<Boolean> templateAvailable;

	/**
	 * Create a validator.
	 * @param operations the operations to check
	 * @param templateAvailable whether a lock template exists to run the locks
	 */
	public LockAnnotationValidator(LockOperationSource operations, Supplier<Boolean> templateAvailable) {
		this.operations = operations;
		this.templateAvailable = templateAvailable;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (AnnotationUtils.isCandidateClass(targetClass, LockType.ANNOTATIONS) && this.operations.validate(targetClass)
				&& !this.templateAvailable.get()) {
			throw new InvalidLockDefinitionException(
					"Bean '" + beanName + "' has lock-annotated methods, but there is no RedisLockTemplate to run"
							+ " them: no RedisConnectionFactory is configured",
					"Configure Redis with spring.data.redis.* (or define a RedisConnectionFactory bean), or set"
							+ " redislock.enabled=false to run the methods without locks");
		}
		return bean;
	}

}
