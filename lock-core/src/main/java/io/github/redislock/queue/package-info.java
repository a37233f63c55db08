/**
 * Task queues on Redis: deduplicated, delayed tasks, and the workers that run
 * {@code @QueuedTask} methods with at-least-once delivery. The implementation is in
 * {@code io.github.redislock.internal.queue}, which is not API.
 */
@NullMarked
package io.github.redislock.queue;

import org.jspecify.annotations.NullMarked;
