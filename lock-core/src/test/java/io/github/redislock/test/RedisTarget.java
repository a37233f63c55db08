package io.github.redislock.test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Where a contract suite runs: one Redis server, or a Redis Cluster.
 */
public interface RedisTarget {

	/**
	 * Return a new, started connection factory of its own (as a separate application
	 * instance would have), closed with the target.
	 */
	LettuceConnectionFactory connectionFactory();

	/**
	 * Return a template on a new connection factory, for looking at Redis directly.
	 */
	default StringRedisTemplate template() {
		return new StringRedisTemplate(connectionFactory());
	}

	/**
	 * Return a lock name made from {@code base}; on a cluster, successive calls give
	 * names whose slots lie on successive masters, so suites spread over all of them.
	 */
	default String lockName(String base) {
		return base;
	}

}
