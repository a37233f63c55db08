package io.github.redislock.test;

/**
 * The Redis deployments a contract suite runs against; use with
 * {@code @ParameterizedClass @EnumSource(RedisMode.class)} and a {@link RedisTargets}
 * parameter.
 */
public enum RedisMode {

	/**
	 * One Redis server.
	 */
	STANDALONE,

	/**
	 * A Redis Cluster of three masters with one replica each.
	 */
	CLUSTER

}
