package io.github.redislock.aop;

/**
 * Applies the {@link QueuedTaskInterceptor} to {@code @QueuedTask} methods.
 */
public final class QueuedTaskAdvisor extends AnnotatedMethodAdvisor {

	public QueuedTaskAdvisor(QueuedTaskSource operations, QueuedTaskInterceptor interceptor) {
		super(operations::isAnnotated, interceptor);
	}

}
