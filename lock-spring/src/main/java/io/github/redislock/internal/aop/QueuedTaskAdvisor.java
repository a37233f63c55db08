package io.github.redislock.internal.aop;

/**
 * Applies the {@link QueuedTaskInterceptor} to {@code @QueuedTask} methods.
 *
 * @since 0.1.0
 */
public final class QueuedTaskAdvisor extends AnnotatedMethodAdvisor {

	public QueuedTaskAdvisor(QueuedTaskSource operations, QueuedTaskInterceptor interceptor) {
		super(java.util.List.of(io.github.redislock.annotation.QueuedTask.class), operations::isAnnotated, interceptor);
	}

}
