/**
 * The advice that runs annotated methods under their locks, and the start-up checks and
 * restricted SpEL key evaluation behind it. Not part of the starter's API: public only
 * where another of the starter's packages needs it, and free to change in any release.
 */
@NullMarked
package io.github.redislock.internal.aop;

import org.jspecify.annotations.NullMarked;
