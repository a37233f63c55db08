/**
 * Test fixture: real Redis servers for tests, never mocks of Redis.
 */
package io.github.redislock.test;
