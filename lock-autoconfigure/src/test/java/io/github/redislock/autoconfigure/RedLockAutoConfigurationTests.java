package io.github.redislock.autoconfigure;

import java.util.List;
import java.util.UUID;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.ReadLock;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.RedLockTemplate;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RedLockAutoConfiguration} and
 * {@code @DistributedLock(redlock = true)}.
 */
@ExtendWith(RedisExtension.class)
class RedLockAutoConfigurationTests {

	private final RedisServer redis;

	private final List<LocalRedisServer> nodes;

	private final ApplicationContextRunner runner;

	RedLockAutoConfigurationTests(RedisServer redis, RedisServers servers) {
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
			assertThat(this.nodes.get(0).template().hasKey(key)).as("released").isFalse();
		});
	}

	@Test
	void redlockOnAReadLockFailsAtStart() {
		this.runner.withBean(RedlockReader.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("read-write locks are not available on RedLock"));
	}

	@Test
	void noRedLockWithoutNodes() {
		LockApplicationContextRunner.on(this.redis)
			.withConfiguration(AutoConfigurations.of(RedLockAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(RedLockTemplate.class)
				.hasSingleBean(RedisLockTemplate.class));
	}

	@Test
	void nodesAreParsedByLettuceWithUserPasswordDatabaseAndTls() {
		RedLockNodeConnections connections = new RedLockNodeConnections(
				List.of("redis://app:s3cret@127.0.0.1:7001/3", "rediss://:pw@127.0.0.1:7002", "redis://127.0.0.1"),
				java.time.Duration.ofSeconds(1));
		try {
			List<org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory> factories = connections
				.factories();
			assertThat(factories.get(0).getStandaloneConfiguration().getUsername()).isEqualTo("app");
			assertThat(factories.get(0).getStandaloneConfiguration().getPassword().get())
				.containsExactly("s3cret".toCharArray());
			assertThat(factories.get(0).getStandaloneConfiguration().getDatabase()).isEqualTo(3);
			assertThat(factories.get(0).getPort()).isEqualTo(7001);
			assertThat(factories.get(0).isUseSsl()).isFalse();
			assertThat(factories.get(1).isUseSsl()).isTrue();
			assertThat(factories.get(1).getStandaloneConfiguration().getPassword().get())
				.containsExactly("pw".toCharArray());
			assertThat(factories.get(2).getPort()).isEqualTo(6379);
		}
		finally {
			connections.destroy();
		}
	}

	@Test
	void badNodeUriFailsStartNamingThePropertyWithoutThePassword() {
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new RedLockNodeConnections(List.of("http://app:s3cret@host:6379"),
					java.time.Duration.ofSeconds(1)))
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("redislock.redlock.nodes");
				assertThat(ex.getMessage()).doesNotContain("s3cret").contains("app:****@host");
			});
	}

	@Test
	void nodePasswordsNeverAppearInMessages() {
		assertThat(RedLockNodeConnections.redact("redis://app:s3cret@host:6379"))
			.isEqualTo("redis://app:****@host:6379")
			.doesNotContain("s3cret");
	}

	static class Guarded {

		@DistributedLock(name = "guarded", key = "#id", redlock = true, waitTime = "2s")
		public List<Boolean> run(String id, List<LocalRedisServer> nodes) {
			String key = "redislock:{" + LockContext.lockName() + "}";
			return nodes.stream().map((node) -> node.template().hasKey(key)).toList();
		}

	}

	static class RedlockReader {

		@ReadLock(redlock = true)
		public void read() {
		}

	}

}
