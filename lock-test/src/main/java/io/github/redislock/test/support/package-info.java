/**
 * Test support for applications that use the starter: a real Redis for their tests
 * ({@link io.github.redislock.test.support.WithRedis}), waiting for and running queued
 * tasks ({@link io.github.redislock.test.support.TaskQueueTestSupport}) and assertions on
 * locks ({@link io.github.redislock.test.support.RedisLockAssert}).
 */
@NullMarked
package io.github.redislock.test.support;

import org.jspecify.annotations.NullMarked;
