package io.github.redislock.internal.aop;

import java.time.Duration;

import io.github.redislock.annotation.OnDuplicate;
import org.jspecify.annotations.Nullable;

/**
 * What one {@code @QueuedTask} method asks for, checked when the application started.
 *
 * @param description the annotation and method, for messages
 * @param queue the queue name
 * @param id the id expression, or {@code null} for a digest of the arguments
 * @param delay how long after the call the task is due
 * @param onDuplicate what a call does when the id is waiting already
 * @param parameterNames the method's parameter names, for messages
 */
record QueuedTaskOperation(String description, String queue, @Nullable LockKeyExpressions id, Duration delay,
		OnDuplicate onDuplicate, String[] parameterNames) {
}
