/**
 * Micrometer metrics of the locks and queues (the meter names are API; these classes are
 * not, and are free to change in any release).
 */
@NullMarked
package io.github.redislock.internal.metrics;

import org.jspecify.annotations.NullMarked;
