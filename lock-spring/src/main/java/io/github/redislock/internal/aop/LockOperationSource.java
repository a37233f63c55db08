package io.github.redislock.internal.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.redislock.annotation.OnLockFailure;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.PropertyResolver;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Finds lock annotations ({@code @DistributedLock}, {@code @ReadLock},
 * {@code @WriteLock}) on methods and turns them into checked {@link LockOperation}s, once
 * per method and target class.
 *
 * @since 0.1.0
 */
public final class LockOperationSource {

	private final Map<MethodClassKey, Optional<LockOperation>> cache = new ConcurrentHashMap<>();

	private final PropertyResolver placeholders;

	private final Supplier<Duration> defaultWaitTime;

	private final BooleanSupplier redlockAvailable;

	private Supplier<Duration> defaultLeaseTime = () -> Duration.ofSeconds(30);

	/**
	 * Create a source.
	 * @param placeholders resolves {@code ${...}} in durations
	 * @param defaultWaitTime the wait time of annotations that set none
	 * @param redlockAvailable whether RedLock nodes are configured
	 */
	public LockOperationSource(PropertyResolver placeholders, Supplier<Duration> defaultWaitTime,
			BooleanSupplier redlockAvailable) {
		this.placeholders = placeholders;
		this.defaultWaitTime = defaultWaitTime;
		this.redlockAvailable = redlockAvailable;
	}

	/**
	 * Set the lease of locks whose annotation sets none, to check {@code maxHold}
	 * against.
	 * @param leaseTime the default lease ({@code redislock.lease-time})
	 */
	public void setDefaultLeaseTime(Supplier<Duration> leaseTime) {
		this.defaultLeaseTime = leaseTime;
	}

	/**
	 * Return whether the method, as called on the target class, carries a lock
	 * annotation.
	 */
	boolean isAnnotated(Method method, @Nullable Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		for (Class<? extends Annotation> type : LockType.ANNOTATIONS) {
			if (AnnotatedElementUtils.hasAnnotation(specific, type)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return the operation of the method as called on the target class, or {@code null}
	 * when it carries no lock annotation.
	 * @throws InvalidLockDefinitionException when the annotation cannot work
	 */
	@Nullable LockOperation get(Method method, @Nullable Class<?> targetClass) {
		MethodClassKey key = new MethodClassKey(method, targetClass);
		Optional<LockOperation> operation = this.cache.get(key);
		if (operation == null) {
			operation = Optional.ofNullable(parse(AopUtils.getMostSpecificMethod(method, targetClass), targetClass));
			this.cache.put(key, operation);
		}
		return operation.orElse(null);
	}

	/**
	 * Check every lock annotation of a class; called for each bean at start-up.
	 * @return whether the class has any
	 * @throws InvalidLockDefinitionException when an annotation cannot work
	 */
	boolean validate(Class<?> targetClass) {
		List<Method> annotated = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, annotated::add, (method) -> isAnnotated(method, targetClass));
		for (Method method : annotated) {
			get(method, targetClass);
		}
		return !annotated.isEmpty();
	}

	private @Nullable LockOperation parse(Method method, @Nullable Class<?> targetClass) {
		MergedAnnotations annotations = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY);
		List<LockType> types = new ArrayList<>();
		for (LockType type : LockType.values()) {
			if (annotations.isPresent(type.annotation())) {
				types.add(type);
			}
		}
		if (types.isEmpty()) {
			return null;
		}
		LockType type = types.get(0);
		MergedAnnotation<?> annotation = annotations.get(type.annotation());
		String description = "@" + type.annotation().getSimpleName() + " on " + describe(method);
		if (types.size() > 1) {
			throw new InvalidLockDefinitionException(
					description + ": the method also carries "
							+ types.subList(1, types.size())
								.stream()
								.map((other) -> "@" + other.annotation().getSimpleName())
								.toList(),
					"Keep one lock annotation per method; take further locks in the methods it calls");
		}
		if (Modifier.isStatic(method.getModifiers()) || Modifier.isPrivate(method.getModifiers())) {
			throw new InvalidLockDefinitionException(
					description + ": the method is static or private, so calls"
							+ " to it never pass through the lock advice",
					"Make the method public (or protected) and non-static");
		}
		if (Modifier.isFinal(method.getModifiers())) {
			throw new InvalidLockDefinitionException(
					description + ": the method is final, so the proxy cannot intercept calls to it and the lock"
							+ " would never be taken",
					"Remove final from the method (in Kotlin: open it, or use the kotlin-spring compiler plugin)");
		}
		if (isKotlinSuspend(method)) {
			throw new InvalidLockDefinitionException(
					description + ": a Kotlin suspend function returns when it first suspends, so the lock would be"
							+ " released before its work is done",
					"Take the lock inside the coroutine (RedisLockTemplate.executeAsync, awaited), or lock a function"
							+ " that is not suspending");
		}
		Class<?> returnType = method.getReturnType();
		ReturnKind returnKind = ReturnKind.of(returnType);
		if (returnKind == null) {
			throw new InvalidLockDefinitionException(
					description + ": returns " + returnType.getSimpleName()
							+ ", a type the lock cannot follow (asynchronous, but not a CompletionStage, Mono or Flux"
							+ (ReturnKind.REACTOR_PRESENT ? "" : "; reactive types need Reactor on the class path")
							+ "), so the lock would be released before the asynchronous work finishes",
					"Return CompletionStage or CompletableFuture (or Reactor's Mono or Flux, or another concrete"
							+ " reactive type that Spring's ReactiveAdapterRegistry adapts), which the lock is held"
							+ " until they complete, or return the result synchronously");
		}
		boolean redlock = annotation.getValue("redlock", Boolean.class).orElse(false);
		if (redlock && returnKind.form() != ReturnKind.Form.SYNCHRONOUS) {
			throw new InvalidLockDefinitionException(
					description + ": redlock = true on a method returning " + returnType.getSimpleName()
							+ ", but asynchronous holds are not available on RedLock in annotations",
					"Use RedisLockTemplate.executeAsync on the redLockTemplate bean, or a lock on the application's"
							+ " Redis");
		}
		if (redlock && type != LockType.EXCLUSIVE) {
			throw new InvalidLockDefinitionException(
					description + ": redlock = true, but read-write locks are not available on RedLock",
					"Use @DistributedLock(redlock = true), or a read-write lock on the application's Redis");
		}
		if (redlock && !this.redlockAvailable.getAsBoolean()) {
			throw new InvalidLockDefinitionException(
					description + ": redlock = true, but no RedLock nodes are configured (redislock.redlock.nodes)",
					"Configure the independent Redis servers in redislock.redlock.nodes, or remove redlock = true");
		}
		String declaredName = annotation.getString("name");
		String name = StringUtils.hasText(declaredName) ? declaredName
				: method.getDeclaringClass().getSimpleName() + "." + method.getName();
		LockKeyExpressions keys = LockKeyExpressions.parse(description, method, annotation.getStringArray("key"));
		Duration waitTime = duration(description, "waitTime", annotation.getString("waitTime"), true);
		Duration leaseTime = duration(description, "leaseTime", annotation.getString("leaseTime"), false);
		Method fallback = fallback(description, method,
				(targetClass != null) ? targetClass : method.getDeclaringClass(), annotation.getString("fallback"));
		String holdAtLeastText = annotation.getValue("holdAtLeast", String.class).orElse("");
		String maxHoldText = annotation.getValue("maxHold", String.class).orElse("");
		int permits = (type == LockType.SEMAPHORE) ? permits(description, annotation.getString("permits")) : 0;
		Duration holdAtLeast = duration(description, "holdAtLeast", holdAtLeastText, true);
		Duration maxHold = duration(description, "maxHold", maxHoldText, false);
		checkHoldBounds(description, leaseTime, holdAtLeast, holdAtLeastText, maxHold, maxHoldText);
		OnLockFailure onFailure = annotation.getEnum("onFailure", OnLockFailure.class);
		if (type != LockType.SEMAPHORE && AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)) {
			// A tick that finds the job's lock taken is run elsewhere: it does not wait
			// (a waiter would take the lock once the holder is done and run the same tick
			// again) and skips (an exception would only make the scheduler log an error).
			if (waitTime == null) {
				waitTime = Duration.ZERO;
			}
			else if (!waitTime.isZero() && holdAtLeast != null && !holdAtLeast.isZero()) {
				throw new InvalidLockDefinitionException(description + ": a @Scheduled method with waitTime '"
						+ annotation.getString("waitTime") + "' and holdAtLeast '" + holdAtLeastText
						+ "': an instance that waits takes the lock when the first one's holdAtLeast ends, and runs"
						+ " the same tick again",
						"Leave waitTime out (a @Scheduled method does not wait: 0) so that late instances skip the"
								+ " tick");
			}
			onFailure = OnLockFailure.SKIP;
		}
		return new LockOperation(description, type, redlock, name, keys,
				(waitTime != null) ? waitTime : this.defaultWaitTime.get(), leaseTime, onFailure, fallback, returnType,
				returnKind, permits, (holdAtLeast != null && !holdAtLeast.isZero()) ? holdAtLeast : null, maxHold);
	}

	/**
	 * Whether a method is a Kotlin {@code suspend} function as the JVM sees it: its last
	 * parameter is the coroutine's {@code Continuation}.
	 */
	static boolean isKotlinSuspend(Method method) {
		Class<?>[] parameters = method.getParameterTypes();
		return parameters.length > 0
				&& parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation");
	}

	private int permits(String description, String text) {
		String resolved;
		try {
			resolved = this.placeholders.resolveRequiredPlaceholders(text).trim();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockDefinitionException(
					description + ": permits '" + text + "' cannot be resolved: " + ex.getMessage(),
					"Define the property, or give a default: ${name:4}");
		}
		int permits;
		try {
			permits = Integer.parseInt(resolved);
		}
		catch (NumberFormatException ex) {
			permits = 0;
		}
		if (permits < 1) {
			throw new InvalidLockDefinitionException(
					description + ": permits '" + text + "'"
							+ (resolved.equals(text) ? "" : " (resolved to '" + resolved + "')")
							+ " is not a whole number of at least 1",
					"Give how many calls may run at once, e.g. permits = \"4\" or permits = \"${app.max:4}\"");
		}
		return permits;
	}

	private void checkHoldBounds(String description, @Nullable Duration leaseTime, @Nullable Duration holdAtLeast,
			String holdAtLeastText, @Nullable Duration maxHold, String maxHoldText) {
		if (holdAtLeast != null && leaseTime != null && holdAtLeast.compareTo(leaseTime) > 0) {
			throw new InvalidLockDefinitionException(
					description + ": holdAtLeast '" + holdAtLeastText + "' (" + holdAtLeast
							+ ") is longer than the fixed leaseTime (" + leaseTime
							+ "), so the lock would expire before it",
					"Shorten holdAtLeast, lengthen leaseTime, or remove leaseTime (the watchdog keeps the lock"
							+ " while the method runs)");
		}
		if (maxHold != null && leaseTime != null) {
			throw new InvalidLockDefinitionException(
					description + ": maxHold '" + maxHoldText + "' has no effect with a fixed leaseTime (" + leaseTime
							+ "): that lease is never renewed",
					"Remove maxHold (the lock expires after leaseTime), or remove leaseTime to have the watchdog"
							+ " renew it up to maxHold");
		}
		Duration lease = this.defaultLeaseTime.get();
		if (maxHold != null && maxHold.compareTo(lease) < 0) {
			throw new InvalidLockDefinitionException(
					description + ": maxHold '" + maxHoldText + "' (" + maxHold + ") is shorter than the lease ("
							+ lease + ", redislock.lease-time)",
					"Make maxHold at least the lease, or shorten redislock.lease-time");
		}
	}

	private @Nullable Duration duration(String description, String attribute, String text, boolean zeroAllowed) {
		return DurationAttributes.parse(this.placeholders, description, attribute, text, zeroAllowed);
	}

	private static @Nullable Method fallback(String description, Method method, Class<?> targetClass, String name) {
		if (name.isEmpty()) {
			return null;
		}
		Method fallback = ReflectionUtils.findMethod(targetClass, name, method.getParameterTypes());
		if (fallback == null) {
			List<String> candidates = new ArrayList<>();
			ReflectionUtils.doWithMethods(targetClass, (candidate) -> candidates.add(describe(candidate)),
					(candidate) -> candidate.getName().equals(name));
			throw new InvalidLockDefinitionException(description + ": fallback method '" + name + "' with parameters "
					+ Arrays.toString(parameterNames(method)) + " not found on " + ClassUtils.getShortName(targetClass)
					+ (candidates.isEmpty() ? "" : "; found only " + candidates),
					"Declare " + name + " with the same parameters as " + method.getName()
							+ ", or correct the fallback name");
		}
		boolean compatible = (method.getReturnType() == void.class) ? fallback.getReturnType() == void.class
				: ClassUtils.isAssignable(method.getReturnType(), fallback.getReturnType());
		if (!compatible) {
			throw new InvalidLockDefinitionException(
					description + ": fallback method '" + describe(fallback) + "' returns "
							+ fallback.getReturnType().getSimpleName() + ", not "
							+ method.getReturnType().getSimpleName(),
					"Make the fallback return what the method returns");
		}
		ReflectionUtils.makeAccessible(fallback);
		return fallback;
	}

	private static String[] parameterNames(Method method) {
		return Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toArray(String[]::new);
	}

	static String describe(Method method) {
		return ClassUtils.getShortName(ClassUtils.getUserClass(method.getDeclaringClass())) + "." + method.getName()
				+ "(" + String.join(", ", parameterNames(method)) + ")";
	}

}
