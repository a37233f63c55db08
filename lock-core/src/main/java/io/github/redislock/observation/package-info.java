/**
 * Micrometer Observations of annotated lock methods (the wait for a lock and the hold
 * under it), for tracing: their context, documentation and conventions. The lock meters
 * ({@code redislock.acquire}, {@code redislock.held}) are recorded by the lock engine for
 * every lock; these observations add spans, not meters.
 */
@NullMarked
package io.github.redislock.observation;

import org.jspecify.annotations.NullMarked;
