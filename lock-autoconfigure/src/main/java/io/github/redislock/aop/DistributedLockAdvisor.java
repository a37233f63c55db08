package io.github.redislock.aop;

/**
 * Applies the {@link DistributedLockInterceptor} to methods carrying a lock annotation.
 */
public final class DistributedLockAdvisor extends AnnotatedMethodAdvisor {

	public DistributedLockAdvisor(LockOperationSource operations, DistributedLockInterceptor interceptor) {
		super(LockType.ANNOTATIONS, operations::isAnnotated, interceptor);
	}

}
