/**
 * The advice that runs annotated methods under their locks, and the start-up checks and
 * restricted SpEL key evaluation behind it.
 */
@NullMarked
package io.github.redislock.aop;

import org.jspecify.annotations.NullMarked;
