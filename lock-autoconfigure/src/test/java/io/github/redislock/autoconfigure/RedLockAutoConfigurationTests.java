package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.redislock.annotation.ReadLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.RedLockTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RedLockAutoConfiguration}, without a Redis server (the nodes are never
 * asked for a connection).
 */
class RedLockAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis
		.runner(AopAutoConfiguration.class, RedisLockAutoConfiguration.class, RedLockAutoConfiguration.class,
				RedisLockAnnotationAutoConfiguration.class)
		.withPropertyValues("redislock.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3");

	@Test
	void providesARedLockTemplateBesideThePrimaryOne() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasBean("redLockTemplate").hasSingleBean(RedLockTemplate.class);
			assertThat(context.getBean(RedisLockTemplate.class)).isInstanceOf(DefaultRedisLockTemplate.class);
			RedLockTemplate redlock = context.getBean(RedLockTemplate.class);
			assertThat(redlock.getNodeCount()).isEqualTo(3);
			assertThat(redlock.getQuorum()).isEqualTo(2);
		});
	}

	@Test
	void withoutNodesThereIsNoRedLockTemplate() {
		UnstartedRedis.runner(RedisLockAutoConfiguration.class, RedLockAutoConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedLockTemplate.class)
				.hasSingleBean(RedisLockTemplate.class));
	}

	@Test
	void withoutLettuceThereIsNoRedLockTemplate() {
		this.runner.withClassLoader(new FilteredClassLoader("io.lettuce"))
			.run((context) -> assertThat(context).doesNotHaveBean(RedLockTemplate.class));
	}

	@Test
	void aRedLockTemplateOfTheApplicationsOwnWins() {
		this.runner
			.withBean("redLockTemplate", RedisLockTemplate.class,
					() -> UnstartedRedis.unsupported(RedisLockTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedLockTemplate.class));
	}

	@Test
	void disabledRegistersNoRedLockTemplate() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedLockTemplate.class));
	}

	@Test
	void redlockOnAReadLockFailsAtStart() {
		this.runner.withBean(RedlockReader.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("read-write locks are not available on RedLock"));
	}

	@Test
	void nodesAreParsedByLettuceWithUserPasswordDatabaseAndTls() {
		RedLockNodeConnections connections = new RedLockNodeConnections(
				List.of("redis://app:s3cret@127.0.0.1:7001/3", "rediss://:pw@127.0.0.1:7002", "redis://127.0.0.1"),
				Duration.ofSeconds(1));
		try {
			List<LettuceConnectionFactory> factories = connections.factories();
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
	void aBadNodeUriFailsStartNamingThePropertyWithoutThePassword() {
		assertThatExceptionOfType(io.github.redislock.internal.aop.InvalidLockDefinitionException.class)
			.isThrownBy(() -> new RedLockNodeConnections(List.of("http://app:s3cret@host:6379"), Duration.ofSeconds(1)))
			.satisfies((ex) -> assertThat(ex.getMessage()).contains("redislock.redlock.nodes")
				.doesNotContain("s3cret")
				.contains("app:****@host"));
	}

	@Test
	void nodePasswordsNeverAppearInMessages() {
		assertThat(RedLockNodeConnections.redact("redis://app:s3cret@host:6379"))
			.isEqualTo("redis://app:****@host:6379")
			.doesNotContain("s3cret");
		assertThat(RedLockNodeConnections.redact("redis://app:s3/cr@et@host:6379"))
			.isEqualTo("redis://app:****@host:6379");
		assertThat(RedLockNodeConnections.redact("redis://s3cret@host:6379")).isEqualTo("redis://****@host:6379");
		assertThat(RedLockNodeConnections.redact("rediss://:s3cret@host")).isEqualTo("rediss://:****@host");
		assertThat(RedLockNodeConnections.redact("redis://host:6379/2")).isEqualTo("redis://host:6379/2");
		assertThat(RedLockNodeConnections.redact("redis://app:p%40ss@host:6379"))
			.isEqualTo("redis://app:****@host:6379");
		// Written without the scheme's //: nothing before the @ is shown.
		assertThat(RedLockNodeConnections.redact("app:s3cret@127.0.0.1:6379")).isEqualTo("****@127.0.0.1:6379");
		assertThat(RedLockNodeConnections.redact("redis:app:s3cret@host")).isEqualTo("****@host");
		assertThat(RedLockNodeConnections.redact("redis:/app:s3cret@host")).isEqualTo("****@host");
		assertThat(RedLockNodeConnections.redact("redis:\\u:s3cret@host")).isEqualTo("****@host");
	}

	/**
	 * A node whose host or port cannot be right stops the start, instead of failing on
	 * first use.
	 */
	@Test
	void aNodeWithoutAValidHostAndPortFailsTheStart() {
		for (String node : List.of("rediss://u:s3cret@h:bad", "redis://host:-1", "redis://:6379",
				"redis://h\u00f6st:6379", "redis://host:70000")) {
			assertThatExceptionOfType(io.github.redislock.internal.aop.InvalidLockDefinitionException.class).as(node)
				.isThrownBy(() -> new RedLockNodeConnections(List.of(node), Duration.ofSeconds(1)))
				.satisfies((ex) -> assertThat(ex.getMessage()).contains("redislock.redlock.nodes")
					.doesNotContain("s3cret"));
		}
	}

	/**
	 * The nodes given as one comma-separated value (an environment variable, a command
	 * line argument), one of them bad: the start fails, and Spring Boot's failure report
	 * shows no node's password.
	 */
	@Test
	@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
	void aBadNodeAmongNodesGivenAsOneValueFailsTheStartWithoutShowingAnyPassword(
			org.springframework.boot.test.system.CapturedOutput output) {
		String nodes = "redis://app:first-s3cret@127.0.0.1:1,redis://second-s3cret@127.0.0.1:2,"
				+ "redis://app:th/ird@s3cret@127.0.0.1:3,http://app:fourth-s3cret@127.0.0.1:4";
		org.springframework.boot.SpringApplication application = new org.springframework.boot.SpringApplication(
				RedLockApplication.class);
		application.setWebApplicationType(org.springframework.boot.WebApplicationType.NONE);
		// Spring Boot's logging system left alone: initialized here, while this test
		// captures the output, it would keep writing to this test's capture, and later
		// tests of the JVM that read the log would see nothing.
		System.setProperty(org.springframework.boot.logging.LoggingSystem.SYSTEM_PROPERTY,
				org.springframework.boot.logging.LoggingSystem.NONE);
		try {
			assertThatExceptionOfType(RuntimeException.class)
				.isThrownBy(() -> application.run("--redislock.redlock.nodes=" + nodes, "--spring.main.banner-mode=off",
						"--spring.data.redis.port=1"));
		}
		finally {
			System.clearProperty(org.springframework.boot.logging.LoggingSystem.SYSTEM_PROPERTY);
		}
		assertThat(output.getAll()).contains("redislock.redlock.nodes")
			.doesNotContain("first-s3cret")
			.doesNotContain("second-s3cret")
			.doesNotContain("s3cret@127.0.0.1:3")
			.doesNotContain("fourth-s3cret");
	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	@org.springframework.boot.autoconfigure.ImportAutoConfiguration({
			org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedLockAutoConfiguration.class })
	static class RedLockApplication {

	}

	static class RedlockReader {

		@ReadLock(redlock = true)
		public void read() {
		}

	}

}
