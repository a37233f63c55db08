package io.github.redislock.internal.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.internal.queue.QueueWorkers;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks the {@code @QueuedTask} methods of every bean as it is created, and registers
 * each as the handler of its queue with the workers.
 *
 * @since 0.1.0
 */
public final class QueuedTaskRegistrar implements BeanPostProcessor {

	private final QueuedTaskSource operations;

	private final Supplier<@Nullable QueueWorkers> workers;

	private final Supplier<String> noWorkersReason;

	/**
	 * Create a registrar.
	 * @param operations the {@code @QueuedTask} methods
	 * @param workers the workers of this instance, when there are any
	 * @param noWorkersReason why there are none, for the start-up failure of a bean with
	 * {@code @QueuedTask} methods
	 */
	public QueuedTaskRegistrar(QueuedTaskSource operations, Supplier<@Nullable QueueWorkers> workers,
			Supplier<String> noWorkersReason) {
		this.operations = operations;
		this.workers = workers;
		this.noWorkersReason = noWorkersReason;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (!AnnotationUtils.isCandidateClass(targetClass, QueuedTask.class)) {
			return bean;
		}
		List<Method> methods = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, methods::add,
				(method) -> this.operations.isAnnotated(method, targetClass));
		if (methods.isEmpty()) {
			return bean;
		}
		QueueWorkers workers = this.workers.get();
		if (workers == null) {
			throw new InvalidLockDefinitionException(
					"Bean '" + beanName + "' has @QueuedTask methods, but there is no task queue to run them: "
							+ this.noWorkersReason.get(),
					"Configure Redis with spring.data.redis.* (one RedisConnectionFactory, or one marked @Primary),"
							+ " declare your own queue as a RedisTaskQueue bean, or set redislock.enabled=false to"
							+ " run the methods directly");
		}
		for (Method method : methods) {
			QueuedTaskOperation operation = this.operations.get(method, targetClass);
			if (operation != null) {
				String unreadable = workers.unreadableParameters(operation.method());
				if (unreadable != null) {
					throw new InvalidLockDefinitionException(operation.description() + ": " + unreadable,
							"Pass what the task needs to find or rebuild it (an id, a path, a URL, the values) instead");
				}
				workers.register(operation.queue(), beanName, AopUtils.getMostSpecificMethod(method, targetClass),
						operation.settings());
			}
		}
		return bean;
	}

}
