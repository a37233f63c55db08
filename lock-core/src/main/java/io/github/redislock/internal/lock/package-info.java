/**
 * The lock engine behind the {@code io.github.redislock.core} interfaces: the templates,
 * the scripts and their callers, the watchdog, wake-ups and replica acknowledgement. Not
 * part of the starter's API: public only where another of the starter's packages needs
 * it, and free to change in any release. The states of a hold and of an acquisition, the
 * threads that move them and the races closed on the way are described on
 * {@code AbstractRedisLock}.
 */
@NullMarked
package io.github.redislock.internal.lock;

import org.jspecify.annotations.NullMarked;
