package io.github.redislock.internal.aop;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.function.Supplier;

import io.github.redislock.annotation.OnDuplicate;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.internal.queue.RedisTaskQueue;
import io.github.redislock.internal.queue.TaskArguments;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.support.AopUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Turns calls of {@code @QueuedTask} methods into enqueued tasks; lets a worker's own
 * call through to the method body (a call made from inside a running task is enqueued).
 * Arguments are written (and errors raised) at the call; inside a transaction the task is
 * enqueued after the commit.
 *
 * @since 0.1.0
 */
public final class QueuedTaskInterceptor implements MethodInterceptor {

	private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			QueuedTaskInterceptor.class.getClassLoader());

	private final QueuedTaskSource operations;

	private final SingletonSupplier<RedisTaskQueue> queue;

	private final SingletonSupplier<JsonMapper> json;

	public QueuedTaskInterceptor(QueuedTaskSource operations, Supplier<RedisTaskQueue> queue,
			Supplier<JsonMapper> json) {
		this.operations = operations;
		this.queue = SingletonSupplier.of(queue);
		this.json = SingletonSupplier.of(json);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		QueuedTaskOperation operation = this.operations.get(invocation.getMethod(), targetClass);
		if (operation == null || QueueWorkers.takeWorkerCall(invocation.getMethod(), targetClass)) {
			return invocation.proceed();
		}
		@Nullable Object[] arguments = invocation.getArguments();
		JsonMapper json = this.json.obtain();
		String payload = TaskArguments.write(json, operation.method(), operation.description(),
				operation.parameterNames(), arguments);
		TaskArguments.checkReadsBack(json, operation.method(), operation.description(), operation.parameterNames(),
				operation.readBackChecked(), arguments, payload);
		String id = (operation.id() != null) ? operation.id().join(arguments) : digest(payload);
		Duration delay = operation.delay(arguments);
		Instant runAt = operation.runAt(arguments);
		// Refused at the call, also when the enqueue waits for a transaction to commit.
		this.queue.obtain().checkPayload(operation.queue(), id, payload);
		Runnable enqueue = () -> this.queue.obtain()
			.enqueueCall(operation.queue(), id, payload, delay, runAt, operation.onDuplicate() == OnDuplicate.REPLACE,
					operation.dedupFor(), operation.versionTag());
		if (TRANSACTIONS_PRESENT && TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new EnqueueAfterCommit(enqueue));
		}
		else {
			enqueue.run();
		}
		return null;
	}

	/**
	 * A {@code @QueuedTask} call made in a transaction: enqueued when it commits, dropped
	 * when it rolls back. Recognised by the test kit, which refuses to wait for a queue
	 * while the calling thread's transaction holds one back (a test's transaction is
	 * rolled back: it would never be sent).
	 */
	public static final class EnqueueAfterCommit implements TransactionSynchronization {

		private final Runnable enqueue;

		EnqueueAfterCommit(Runnable enqueue) {
			this.enqueue = enqueue;
		}

		@Override
		public void afterCommit() {
			this.enqueue.run();
		}

	}

	private static String digest(String payload) {
		try {
			byte[] hash = MessageDigest.getInstance("SHA-256").digest(payload.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(hash);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

}
