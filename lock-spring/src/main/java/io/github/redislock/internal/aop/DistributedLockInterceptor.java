package io.github.redislock.internal.aop;

import java.util.function.Supplier;

import io.github.redislock.core.RedisLockTemplate;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs methods annotated with {@code @DistributedLock}, {@code @ReadLock},
 * {@code @WriteLock} or {@code @DistributedSemaphore} under their lock: acquires it (or
 * applies the fallback or failure policy), runs the method, releases it. Reaches the
 * locks through the public API of whatever {@link RedisLockTemplate} bean the application
 * has, as Spring's {@code CacheInterceptor} reaches caches through {@code Cache}.
 *
 * @since 0.1.0
 */
public final class DistributedLockInterceptor implements MethodInterceptor {

	private final LockOperationSource operations;

	private final SingletonSupplier<RedisLockTemplate> template;

	private final SingletonSupplier<RedisLockTemplate> redLockTemplate;

	private volatile SingletonSupplier<ObservationRegistry> observations = SingletonSupplier
		.of(() -> ObservationRegistry.NOOP);

	/**
	 * Create an interceptor.
	 * @param operations the annotated methods
	 * @param template the template on the application's Redis
	 * @param redLockTemplate the RedLock template, for {@code redlock = true}
	 */
	public DistributedLockInterceptor(LockOperationSource operations, Supplier<RedisLockTemplate> template,
			Supplier<RedisLockTemplate> redLockTemplate) {
		this.operations = operations;
		this.template = SingletonSupplier.of(template);
		this.redLockTemplate = SingletonSupplier.of(redLockTemplate);
	}

	/**
	 * Set the registry that records the {@code redislock.lock.wait} and
	 * {@code redislock.lock.hold} observations (spans when tracing is on).
	 * @param observations supplies the registry, on first use
	 */
	public void setObservationRegistry(Supplier<ObservationRegistry> observations) {
		this.observations = SingletonSupplier.of(observations);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockOperation operation = this.operations.get(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		String lockName = operation.lockName(invocation.getArguments());
		RedisLockTemplate template = (operation.redlock() ? this.redLockTemplate : this.template).obtain();
		LockCall call = new LockCall(operation, lockName, LockTarget.of(operation, template, lockName), invocation,
				this.observations.obtain());
		return switch (operation.returnKind().form()) {
			case SYNCHRONOUS -> call.synchronous();
			case COMPLETION_STAGE -> call.completionStage();
			case REACTIVE -> ReactiveLockCalls.invoke(call);
		};
	}

}
