/**
 * Spring Integration on the lock engine: {@link RedisLockRegistryAdapter}, a
 * {@code LockRegistry} (expirable and renewable) whose locks are the template's, for
 * Spring Integration's components and its {@code LockRegistryLeaderInitiator}.
 */
@NullMarked
package io.github.redislock.integration;

import org.jspecify.annotations.NullMarked;
