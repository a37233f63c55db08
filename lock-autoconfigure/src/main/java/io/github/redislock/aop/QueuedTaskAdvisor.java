package io.github.redislock.aop;

/**
 * Applies the {@link QueuedTaskInterceptor} to {@code @QueuedTask} methods.
 */
public final class QueuedTaskAdvisor extends AnnotatedMethodAdvisor {

	public QueuedTaskAdvisor(QueuedTaskSource operations, QueuedTaskInterceptor interceptor) {
		super(java.util.List.of(io.github.redislock.annotation.QueuedTask.class), operations::isAnnotated, interceptor);
	}

}
