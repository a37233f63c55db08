/**
 * Distributed locks on Redis: the template, the lock types, their exceptions and the
 * engine behind them.
 */
@NullMarked
package io.github.redislock.core;

import org.jspecify.annotations.NullMarked;
