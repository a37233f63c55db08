package io.github.redislock.test.support;

/**
 * A running Redis that {@link TestRedis} started.
 */
interface RedisProcess {

	String host();

	int port();

	void stop();

}
