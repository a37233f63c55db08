package io.github.redislock.internal.aop;

/**
 * Applies the {@link DistributedLockInterceptor} to methods carrying a lock annotation.
 *
 * @since 0.1.0
 */
public final class DistributedLockAdvisor extends AnnotatedMethodAdvisor {

	public DistributedLockAdvisor(LockOperationSource operations, DistributedLockInterceptor interceptor) {
		super(LockType.ANNOTATIONS, operations::isAnnotated, interceptor);
	}

}
