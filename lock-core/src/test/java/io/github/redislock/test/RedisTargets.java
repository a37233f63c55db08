package io.github.redislock.test;

import java.util.function.Supplier;

/**
 * Gives a contract suite the Redis of each {@link RedisMode}: the test class's server, or
 * the cluster shared by all tests of this JVM (started on first use).
 */
public final class RedisTargets {

	private final Supplier<RedisServer> server;

	private final Supplier<RedisCluster> cluster;

	RedisTargets(Supplier<RedisServer> server, Supplier<RedisCluster> cluster) {
		this.server = server;
		this.cluster = cluster;
	}

	public RedisTarget get(RedisMode mode) {
		return (mode == RedisMode.CLUSTER) ? this.cluster.get() : this.server.get();
	}

}
