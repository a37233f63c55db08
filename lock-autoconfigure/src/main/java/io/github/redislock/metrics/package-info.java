/**
 * Micrometer metrics of the locks and queues.
 */
@NullMarked
package io.github.redislock.metrics;

import org.jspecify.annotations.NullMarked;
