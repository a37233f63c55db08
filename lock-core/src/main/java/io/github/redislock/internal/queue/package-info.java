/**
 * The task queue behind {@link io.github.redislock.queue.TaskQueue}: its scripts, the
 * poller and the workers. Not part of the starter's API: public only where another of the
 * starter's packages needs it, and free to change in any release.
 */
@NullMarked
package io.github.redislock.internal.queue;

import org.jspecify.annotations.NullMarked;
