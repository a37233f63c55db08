/**
 * A ShedLock {@code LockProvider} backed by the Redis locks, so that
 * {@code @SchedulerLock} jobs run on the engine unchanged.
 */
@NullMarked
package io.github.redislock.shedlock;

import org.jspecify.annotations.NullMarked;
