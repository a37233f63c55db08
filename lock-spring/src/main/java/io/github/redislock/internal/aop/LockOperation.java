package io.github.redislock.internal.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.RedisLock;
import org.jspecify.annotations.Nullable;

/**
 * What one annotated method asks for, checked when the application started.
 *
 * @param description the annotation and method, for messages
 * @param type which lock the annotation asks for
 * @param redlock whether to take the lock with RedLock
 * @param name the declared lock name
 * @param keys the key expressions
 * @param waitTime how long to wait
 * @param leaseTime the fixed lease, or {@code null} for the watchdog
 * @param onFailure what to do when not acquired
 * @param fallback the method to call instead when not acquired
 * @param returnType the method's return type
 * @param returnKind how the lock follows the method's result
 * @param permits for a semaphore, how many holders at once (else 0)
 * @param holdAtLeast the minimum hold, or {@code null} for none
 * @param maxHold the maximum hold, or {@code null} for the template's default
 */
record LockOperation(String description, LockType type, boolean redlock, String name, LockKeyExpressions keys,
		Duration waitTime, @Nullable Duration leaseTime, OnLockFailure onFailure, @Nullable Method fallback,
		Class<?> returnType, ReturnKind returnKind, int permits, @Nullable Duration holdAtLeast,
		@Nullable Duration maxHold) {

	/**
	 * Return the lock with this operation's hold bounds.
	 */
	RedisLock bounded(RedisLock lock) {
		RedisLock bounded = lock;
		if (this.holdAtLeast != null) {
			bounded = bounded.withHoldAtLeast(this.holdAtLeast);
		}
		if (this.maxHold != null) {
			bounded = bounded.withMaxHold(this.maxHold);
		}
		return bounded;
	}

	String lockName(@Nullable Object[] arguments) {
		return this.keys.appendTo(this.name, arguments);
	}

	/**
	 * The value a skipped call returns.
	 */
	/**
	 * Return whether a call skips its work when the lock is not acquired (no fallback,
	 * {@code SKIP}): then that is counted as skipped, not as a time-out.
	 */
	boolean skips() {
		return this.fallback == null && this.onFailure == OnLockFailure.SKIP;
	}

	@Nullable Object skippedResult() {
		Class<?> type = this.returnType;
		if (type == Optional.class) {
			return Optional.empty();
		}
		if (type == OptionalInt.class) {
			return OptionalInt.empty();
		}
		if (type == OptionalLong.class) {
			return OptionalLong.empty();
		}
		if (type == OptionalDouble.class) {
			return OptionalDouble.empty();
		}
		if (!type.isPrimitive() || type == void.class) {
			return null;
		}
		if (type == boolean.class) {
			return false;
		}
		if (type == char.class) {
			return '\0';
		}
		if (type == byte.class) {
			return (byte) 0;
		}
		if (type == short.class) {
			return (short) 0;
		}
		if (type == int.class) {
			return 0;
		}
		if (type == long.class) {
			return 0L;
		}
		if (type == float.class) {
			return 0f;
		}
		return 0d;
	}

}
