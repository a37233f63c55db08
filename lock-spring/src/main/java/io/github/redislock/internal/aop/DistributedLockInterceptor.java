package io.github.redislock.internal.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.function.Supplier;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockMetricNames;
import io.github.redislock.observation.DefaultLockObservationConvention;
import io.github.redislock.observation.LockObservationContext;
import io.github.redislock.observation.LockObservationDocumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs methods annotated with {@code @DistributedLock} under their lock: acquires it (or
 * applies the fallback or failure policy), runs the method, releases it.
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
		if (operation.type() == LockType.SEMAPHORE) {
			// Permits are asynchronous holds, whatever the method returns.
			DefaultRedisLockTemplate semaphores = startersTemplate(operation, template);
			RedisLock permits = semaphores.semaphoreLock(semaphores.getSemaphore(lockName, operation.permits()));
			AsyncLockCall call = new AsyncLockCall(operation, lockName, permits, semaphores, invocation,
					this.observations.obtain());
			return switch (operation.returnKind()) {
				case SYNCHRONOUS -> call.synchronous();
				case COMPLETION_STAGE -> call.completionStage();
				default -> ReactiveLockCalls.invoke(call);
			};
		}
		RedisLock lock = operation.bounded(operation.type().lock(template, lockName));
		if (operation.returnKind() != ReturnKind.SYNCHRONOUS) {
			DefaultRedisLockTemplate asyncTemplate = startersTemplate(operation, template);
			AsyncLockCall call = new AsyncLockCall(operation, lockName, lock, asyncTemplate, invocation,
					this.observations.obtain());
			return (operation.returnKind() == ReturnKind.COMPLETION_STAGE) ? call.completionStage()
					: ReactiveLockCalls.invoke(call);
		}
		LockObservationContext waitContext = new LockObservationContext(LockObservationContext.Phase.WAIT,
				operation.name(), operation.type().kind(), lockName);
		Observation wait = LockObservationDocumentation.LOCK_WAIT
			.observation(null, DefaultLockObservationConvention.WAIT, () -> waitContext, this.observations.obtain())
			.start();
		boolean acquired;
		try (Observation.Scope scope = wait.openScope()) {
			// Measured under the declared name, never the per-call key.
			acquired = LockMetricNames.with(operation.name(), operation.skips(),
					() -> lock.tryLock(operation.waitTime(), operation.leaseTime()));
			waitContext.setOutcome(acquired ? "acquired" : operation.skips() ? "skipped" : "timeout");
		}
		catch (RuntimeException ex) {
			waitContext.setOutcome("error");
			wait.error(ex);
			throw ex;
		}
		finally {
			wait.stop();
		}
		if (!acquired) {
			return notAcquired(operation, lock, invocation);
		}
		Observation hold = LockObservationDocumentation.LOCK_HOLD
			.observation(null, DefaultLockObservationConvention.HOLD,
					() -> new LockObservationContext(LockObservationContext.Phase.HOLD, operation.name(),
							operation.type().kind(), lockName),
					this.observations.obtain())
			.start();
		Object result;
		try (Observation.Scope scope = hold.openScope()) {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			hold.error(ex);
			hold.stop();
			DefaultRedisLockTemplate.unlockAfterFailure(lock, ex);
			throw ex;
		}
		hold.stop();
		lock.unlock();
		return result;
	}

	private static DefaultRedisLockTemplate startersTemplate(LockOperation operation, RedisLockTemplate template) {
		if (!(template instanceof DefaultRedisLockTemplate starters)) {
			throw new IllegalStateException(operation.description() + " needs the starter's own lock template"
					+ " (asynchronous holds, semaphore permits); the RedisLockTemplate bean is "
					+ template.getClass().getName());
		}
		return starters;
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
