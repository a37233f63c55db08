package io.github.redislock.internal.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.internal.queue.TaskArguments;
import io.github.redislock.internal.queue.TaskSettings;
import io.github.redislock.internal.queue.TaskVersion;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.StringUtils;

/**
 * Finds {@code @QueuedTask} methods and turns them into checked
 * {@link QueuedTaskOperation}s, once per method and target class.
 *
 * @since 0.1.0
 */
public final class QueuedTaskSource {

	private final Map<MethodClassKey, Optional<QueuedTaskOperation>> cache = new ConcurrentHashMap<>();

	private final PropertyResolver placeholders;

	public QueuedTaskSource(PropertyResolver placeholders) {
		this.placeholders = placeholders;
	}

	boolean isAnnotated(Method method, @Nullable Class<?> targetClass) {
		return AnnotatedElementUtils.hasAnnotation(AopUtils.getMostSpecificMethod(method, targetClass),
				QueuedTask.class);
	}

	/**
	 * @throws InvalidLockDefinitionException when the annotation cannot work
	 */
	@Nullable QueuedTaskOperation get(Method method, @Nullable Class<?> targetClass) {
		MethodClassKey key = new MethodClassKey(method, targetClass);
		Optional<QueuedTaskOperation> operation = this.cache.get(key);
		if (operation == null) {
			operation = Optional.ofNullable(parse(AopUtils.getMostSpecificMethod(method, targetClass)));
			this.cache.put(key, operation);
		}
		return operation.orElse(null);
	}

	private @Nullable QueuedTaskOperation parse(Method method) {
		QueuedTask annotation = AnnotatedElementUtils.findMergedAnnotation(method, QueuedTask.class);
		if (annotation == null) {
			return null;
		}
		String description = "@QueuedTask on " + LockOperationSource.describe(method);
		if (method.getReturnType() != void.class) {
			throw new InvalidLockDefinitionException(
					description + ": returns " + method.getReturnType().getSimpleName()
							+ ", but a queued call runs later, elsewhere, so it has no result to return",
					"Make the method return void");
		}
		if (Modifier.isStatic(method.getModifiers()) || Modifier.isPrivate(method.getModifiers())) {
			throw new InvalidLockDefinitionException(
					description + ": the method is static or private, so calls to it never pass through the advice",
					"Make the method public (or protected) and non-static");
		}
		if (Modifier.isFinal(method.getModifiers())) {
			throw new InvalidLockDefinitionException(
					description + ": the method is final, so the proxy cannot intercept calls to it and they would"
							+ " run at once instead of being enqueued",
					"Remove final from the method (in Kotlin: open it, or use the kotlin-spring compiler plugin)");
		}
		if (LockOperationSource.isKotlinSuspend(method)) {
			throw new InvalidLockDefinitionException(
					description + ": a Kotlin suspend function cannot be a queued task (its continuation cannot be"
							+ " written down)",
					"Queue a function that is not suspending, and launch the coroutine from it");
		}
		String queue = StringUtils.hasText(annotation.queue())
				? this.placeholders.resolveRequiredPlaceholders(annotation.queue())
				: method.getDeclaringClass().getSimpleName() + "." + method.getName();
		LockKeyExpressions id = StringUtils.hasText(annotation.id())
				? LockKeyExpressions.parse(description, "id", method, new String[] { annotation.id() }) : null;
		String delayText = annotation.delay().trim();
		LockKeyExpressions delayExpression = delayText.startsWith("#")
				? LockKeyExpressions.parse(description, "delay", method, new String[] { delayText }) : null;
		Duration delay = (delayExpression != null) ? null
				: DurationAttributes.parse(this.placeholders, description, "delay", annotation.delay(), true);
		LockKeyExpressions runAt = StringUtils.hasText(annotation.runAt())
				? LockKeyExpressions.parse(description, "runAt", method, new String[] { annotation.runAt() }) : null;
		if (runAt != null && StringUtils.hasText(delayText)) {
			throw new InvalidLockDefinitionException(description + ": both delay '" + annotation.delay()
					+ "' and runAt '" + annotation.runAt() + "' say when the task is due", "Keep one of them");
		}
		Duration dedupFor = DurationAttributes.parse(this.placeholders, description, "dedupFor", annotation.dedupFor(),
				true);
		if (dedupFor != null) {
			try {
				io.github.redislock.internal.queue.RedisTaskQueue.checkDedupFor(dedupFor);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidLockDefinitionException(
						description + ": " + ex.getMessage() + " ('" + annotation.dedupFor() + "')",
						"Write a window such as \"10m\" or \"1h\", or leave it empty");
			}
		}
		TaskSettings settings = settings(annotation, description);
		return new QueuedTaskOperation(description, queue, id, (delay != null) ? delay : Duration.ZERO, delayExpression,
				runAt, annotation.onDuplicate(), settings, LockKeyExpressions.parameterNames(method), method,
				(dedupFor != null) ? dedupFor : Duration.ZERO, TaskVersion.tag(method, settings.version()),
				TaskArguments.readBackChecked(method));
	}

	private TaskSettings settings(QueuedTask annotation, String description) {
		Integer maxAttempts = number(description, "maxAttempts", annotation.maxAttempts(), 1);
		Duration backoff = DurationAttributes.parse(this.placeholders, description, "backoff", annotation.backoff(),
				true);
		Duration visibilityTimeout = DurationAttributes.parse(this.placeholders, description, "visibilityTimeout",
				annotation.visibilityTimeout(), false);
		if (visibilityTimeout != null && visibilityTimeout.toMillis() < 30) {
			throw new InvalidLockDefinitionException(
					description + ": visibilityTimeout '" + annotation.visibilityTimeout() + "' is " + visibilityTimeout
							+ ", shorter than 30ms",
					"Give a running task time to renew its claim: at least 30ms, usually seconds");
		}
		Integer workers = number(description, "workers", annotation.workers(), 0);
		if (annotation.version() < 1) {
			throw new InvalidLockDefinitionException(
					description + ": version " + annotation.version() + " is not a version (they start at 1)",
					"Leave version out for 1, and raise it by one each time the method's parameters change");
		}
		return TaskSettings.builder()
			.maxAttempts(maxAttempts)
			.backoff(backoff)
			.noRetryFor(List.of(annotation.noRetryFor()))
			.visibilityTimeout(visibilityTimeout)
			.workers(workers)
			.version(annotation.version())
			.build();
	}

	private @Nullable Integer number(String description, String attribute, String text, int min) {
		if (!StringUtils.hasText(text)) {
			return null;
		}
		int value;
		try {
			value = Integer.parseInt(this.placeholders.resolveRequiredPlaceholders(text).trim());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockDefinitionException(
					description + ": " + attribute + " '" + text + "' is not a whole number: " + ex.getMessage(),
					"Write a number such as \"3\", or a ${...} placeholder that resolves to one", ex);
		}
		if (value < min || value > 10_000) {
			throw new InvalidLockDefinitionException(
					description + ": " + attribute + " '" + text + "' is " + value + ", outside " + min + " to 10000",
					"Correct the number");
		}
		return value;
	}

}
