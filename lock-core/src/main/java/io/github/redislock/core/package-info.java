/**
 * Distributed locks on Redis: the template, the lock types, their exceptions, the
 * {@link io.github.redislock.core.LockContext} of annotated methods, and the SPI through
 * which an application's own template keeps metrics and the endpoint. The engine behind
 * them is in {@code io.github.redislock.internal.lock}, which is not API.
 */
@NullMarked
package io.github.redislock.core;

import org.jspecify.annotations.NullMarked;
