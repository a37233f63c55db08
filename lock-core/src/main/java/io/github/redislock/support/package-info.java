/**
 * What the public API and the engine share without depending on each other: the holds and
 * the task a thread runs under (which {@link io.github.redislock.core.LockContext},
 * {@link io.github.redislock.core.ReactiveLockContext} and
 * {@link io.github.redislock.queue.TaskContext} read, and the engine records), and names
 * made printable. For implementations of the starter's interfaces; applications read
 * these through the context classes instead. This package imports no other package of the
 * starter.
 */
@NullMarked
package io.github.redislock.support;

import org.jspecify.annotations.NullMarked;
