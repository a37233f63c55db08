package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;

/**
 * The lock contract for RedLock ({@code redLockTemplate}): exclusive across instances,
 * re-entrant by its thread (locally) with the token kept, fenced (the largest token the
 * granting nodes issued; strictly increasing while the nodes' clocks agree, as they do on
 * one machine), its own rival. Waiters are not woken by a message but retry after a
 * random pause, so "promptly" here is within a few retry pauses.
 * <p>
 * On a single server: a RedLock of three independent servers (the test's and two more),
 * so every acquisition needs a quorum of two. On the Cluster: a RedLock whose one node is
 * the Cluster, so that RedLock's own calls (acquire, renew, release, each in parallel
 * over its nodes) run against the Cluster's slots with nothing to outvote a failing node.
 * (Configured through {@code redislock.redlock.nodes} a RedLock's nodes are single
 * servers; the template itself takes any connection factory.)
 * <p>
 * The extra servers are started once per topology run, not per test.
 */
class RedLockContractTests extends LockContractTests {

	/**
	 * A short retry pause, so that waiting and the history stay quick; a generous node
	 * time-out (nothing here freezes a node), so that a first call on a busy machine (the
	 * Cluster's topology, the scripts loaded) does not count as a node that failed: with
	 * 200 ms a zero-wait acquisition on a free lock came back empty now and then under
	 * load.
	 */
	private static final RedLockSettings SETTINGS = new RedLockSettings(Duration.ofSeconds(2), Duration.ofMillis(20),
			0.01);

	/** The nodes started for each run (each has its own {@link RedisServers}). */
	private static final Map<RedisServers, List<RedisTarget>> NODES = Collections.synchronizedMap(new WeakHashMap<>());

	private final List<RedisTarget> nodes;

	RedLockContractTests(RedisMode mode, RedisTargets targets, RedisServers servers) {
		super(mode, targets);
		this.nodes = (mode == RedisMode.CLUSTER) ? List.of(this.redis)
				: NODES.computeIfAbsent(servers, (key) -> List.of(this.redis, servers.start(), servers.start()));
	}

	@Override
	protected Traits traits() {
		return Traits.EXCLUSIVE;
	}

	@Override
	protected RedisLockTemplate newTemplate() {
		return this.templates.createRedLock(this.nodes, LockSettings.DEFAULTS, SETTINGS);
	}

	@Override
	protected Contender subject(RedisLockTemplate template, String name) {
		return Contender.of(template.getLock(name), false);
	}

}
