package io.github.redislock.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Who holds a lock, as {@link RedisLock#holder()} finds it in Redis.
 * <p>
 * Each running lock template registers its instance once (host, process id, application
 * name) under a key that it refreshes while it runs and that expires soon after it stops;
 * a lock's owner id points to that record. A holder whose instance record is gone (its
 * process died, or it never registered) is reported with its instance id, host
 * {@code "unknown"}, process id {@code -1} and an empty application name.
 *
 * @param instanceId the id of the holding lock template (one per application context)
 * @param host the holder's host name
 * @param pid the holder's process id
 * @param application the holder's {@code spring.application.name} (empty when unset)
 * @param acquiredAt when the hold began, by the Redis server's clock (read from its
 * fencing token); {@code null} for a reader of a read-write lock or a semaphore permit,
 * whose acquisition time Redis does not keep
 * @param leaseLeft how long the hold lasts unless renewed
 * @since 0.1.0
 */
public record LockHolder(String instanceId, String host, long pid, String application, @Nullable Instant acquiredAt,
		Duration leaseLeft) {
}
