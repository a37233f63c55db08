package io.github.redislock.internal.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.TemporalAccessor;

import io.github.redislock.annotation.OnDuplicate;
import io.github.redislock.internal.queue.TaskSettings;
import org.jspecify.annotations.Nullable;

/**
 * What one {@code @QueuedTask} method asks for, checked when the application started.
 *
 * @param description the annotation and method, for messages
 * @param queue the queue name
 * @param id the id expression, or {@code null} for a digest of the arguments
 * @param delay how long after the call the task is due, when no expression gives it
 * @param delayExpression an expression giving the delay per call, or {@code null}
 * @param runAt an expression giving the due time per call, or {@code null}
 * @param onDuplicate what a call does when the id is waiting already
 * @param settings the queue's own settings
 * @param parameterNames the method's parameter names, for messages
 * @param method the method, whose declared parameter types the arguments are written and
 * read as
 * @param dedupFor the window after a task of an id ran in which the id is not enqueued
 * again (zero: none)
 * @param versionTag the version of the method recorded with each task (see
 * {@code TaskVersion})
 * @param readBackChecked per parameter whether its arguments are read back at enqueue
 * (see {@code TaskArguments.checkReadsBack})
 */
record QueuedTaskOperation(String description, String queue, @Nullable LockKeyExpressions id, Duration delay,
		@Nullable LockKeyExpressions delayExpression, @Nullable LockKeyExpressions runAt, OnDuplicate onDuplicate,
		TaskSettings settings, String[] parameterNames, Method method, Duration dedupFor, String versionTag,
		boolean[] readBackChecked) {

	/**
	 * Return how long after now one call's task is due.
	 * @throws IllegalArgumentException naming the method and the expression when it gives
	 * no duration
	 */
	Duration delay(@Nullable Object[] arguments) {
		if (this.delayExpression == null) {
			return this.delay;
		}
		Object value = this.delayExpression.value(arguments);
		if (value instanceof Duration duration) {
			return duration;
		}
		throw new IllegalArgumentException(this.description + ": delay expression '" + this.delayExpression.text()
				+ "' gave " + describe(value) + ", not a java.time.Duration; return a Duration (null is not allowed)");
	}

	/**
	 * Return when one call's task is due, or {@code null} when it is due after
	 * {@link #delay(Object[])}.
	 * @throws IllegalArgumentException naming the method and the expression when it gives
	 * no time
	 */
	@Nullable Instant runAt(@Nullable Object[] arguments) {
		if (this.runAt == null) {
			return null;
		}
		Object value = this.runAt.value(arguments);
		if (value instanceof Instant instant) {
			return instant;
		}
		if (value instanceof Number millis && !(value instanceof Double) && !(value instanceof Float)) {
			return Instant.ofEpochMilli(millis.longValue());
		}
		if (value instanceof TemporalAccessor temporal) {
			try {
				return Instant.from(temporal);
			}
			catch (RuntimeException ex) {
				// Falls through to the message below.
			}
		}
		throw new IllegalArgumentException(this.description + ": runAt expression '" + this.runAt.text() + "' gave "
				+ describe(value) + ", not a point in time; return an Instant (or an OffsetDateTime or"
				+ " ZonedDateTime) or epoch milliseconds as a long");
	}

	private static String describe(@Nullable Object value) {
		return (value != null) ? value.getClass().getName() + " '" + value + "'" : "null";
	}

}
