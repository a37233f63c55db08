package io.github.redislock.autoconfigure;

import java.util.List;
import java.util.UUID;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.RedLockTemplate;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedLockAutoConfiguration} over three real Redis servers:
 * {@code @DistributedLock(redlock = true)} takes its lock on them.
 */
@ExtendWith(RedisExtension.class)
class RedLockApplicationTests {

	private final RedisServer redis;

	private final List<LocalRedisServer> nodes;

	private final ApplicationContextRunner runner;

	RedLockApplicationTests(RedisServer redis, RedisServers servers) {
		this.redis = redis;
		this.nodes = List.of(servers.start(), servers.start(), servers.start());
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedLockAutoConfiguration.class))
			.withPropertyValues("redislock.redlock.nodes=" + String.join(",",
					this.nodes.stream().map((node) -> "redis://" + node.host() + ":" + node.port()).toList()));
	}

	@Test
	void redLockTemplateWorksOverTheNodesAndThePrimaryTemplateStaysOnTheApplicationsRedis() {
		this.runner.run((context) -> {
			assertThat(context).hasBean("redLockTemplate").hasSingleBean(RedLockTemplate.class);
			assertThat(context.getBean(RedisLockTemplate.class)).isInstanceOf(DefaultRedisLockTemplate.class);
			RedLockTemplate redlock = context.getBean(RedLockTemplate.class);
			assertThat(redlock.getNodeCount()).isEqualTo(3);
			assertThat(redlock.getQuorum()).isEqualTo(2);
		});
	}

	@Test
	void annotatedMethodWithRedlockTakesTheLockOnTheNodes() {
		this.runner.withBean(Guarded.class).run((context) -> {
			String id = UUID.randomUUID().toString();
			String key = "redislock:{guarded:" + id + "}";
			List<Boolean> onNodes = context.getBean(Guarded.class).run(id, this.nodes);
			// A majority is what RedLock promises; a node slower than the node timeout (a
			// first connection on a loaded machine) may miss out.
			assertThat(onNodes).hasSize(3).filteredOn(Boolean::booleanValue).hasSizeGreaterThanOrEqualTo(2);
			assertThat(this.redis.template().hasKey(key)).as("not on the application's Redis").isFalse();
			assertThat(LockRecords.isHeld(this.nodes.get(0).template(), key)).as("released").isFalse();
		});
	}

	static class Guarded {

		@DistributedLock(name = "guarded", key = "#id", redlock = true, waitTime = "2s")
		public List<Boolean> run(String id, List<LocalRedisServer> nodes) {
			String key = "redislock:{" + LockContext.lockName() + "}";
			return nodes.stream().map((node) -> LockRecords.isHeld(node.template(), key)).toList();
		}

	}

}
