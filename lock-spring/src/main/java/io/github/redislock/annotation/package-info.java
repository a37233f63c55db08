/**
 * Annotations that put service methods under a distributed lock.
 */
@NullMarked
package io.github.redislock.annotation;

import org.jspecify.annotations.NullMarked;
