package io.github.redislock.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.function.Supplier;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.DefaultRedisLockTemplate;
import io.github.redislock.core.LockMetricNames;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs methods annotated with {@code @DistributedLock} under their lock: acquires it (or
 * applies the fallback or failure policy), runs the method, releases it.
 */
public final class DistributedLockInterceptor implements MethodInterceptor {

	private final LockOperationSource operations;

	private final SingletonSupplier<RedisLockTemplate> template;

	private final SingletonSupplier<RedisLockTemplate> redLockTemplate;

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

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockOperation operation = this.operations.get(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		String lockName = operation.lockName(invocation.getArguments());
		RedisLock lock = operation.type()
			.lock((operation.redlock() ? this.redLockTemplate : this.template).obtain(), lockName);
		// Measured under the declared name, never the per-call key.
		if (!LockMetricNames.with(operation.name(), () -> lock.tryLock(operation.waitTime(), operation.leaseTime()))) {
			return notAcquired(operation, lock, invocation);
		}
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			DefaultRedisLockTemplate.unlockAfterFailure(lock, ex);
			throw ex;
		}
		lock.unlock();
		return result;
	}

	private @Nullable Object notAcquired(LockOperation operation, RedisLock lock, MethodInvocation invocation)
			throws Throwable {
		Method fallback = operation.fallback();
		if (fallback != null) {
			try {
				return fallback.invoke(invocation.getThis(), invocation.getArguments());
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}
		if (operation.onFailure() == OnLockFailure.SKIP) {
			return operation.skippedResult();
		}
		throw DefaultRedisLockTemplate.notAcquired(lock, operation.waitTime());
	}

}
