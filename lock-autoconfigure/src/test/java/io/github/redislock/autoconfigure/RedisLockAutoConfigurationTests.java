package io.github.redislock.autoconfigure;

import java.lang.reflect.Proxy;
import java.time.Duration;

import io.github.redislock.core.LockCallback;
import io.github.redislock.core.OnLockLost;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.internal.aop.DistributedLockAdvisor;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockAutoConfiguration} and
 * {@link RedisLockAnnotationAutoConfiguration}.
 */
@ExtendWith(RedisExtension.class)
class RedisLockAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	RedisLockAutoConfigurationTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis);
	}

	@Test
	void autoConfigurationProvidesTemplateAndAdvisor() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockTemplate.class).hasSingleBean(DistributedLockAdvisor.class);
			RedisLock lock = context.getBean(RedisLockTemplate.class).getLock("autoconfigured");
			assertThat(lock.tryLock()).isTrue();
			lock.unlock();
			assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
				.isEqualTo(Ordered.LOWEST_PRECEDENCE - 100);
		});
	}

	@Test
	void propertiesConfigureTheTemplate() {
		this.runner
			.withPropertyValues("redislock.key-prefix=app1", "redislock.lease-time=5s", "redislock.on-lock-lost=log",
					"redislock.advice-order=7")
			.run((context) -> {
				DefaultRedisLockTemplate template = context.getBean(DefaultRedisLockTemplate.class);
				assertThat(template.getSettings().keyPrefix()).isEqualTo("app1");
				assertThat(template.getSettings().leaseTime()).isEqualTo(Duration.ofSeconds(5));
				assertThat(template.getSettings().onLockLost()).isEqualTo(OnLockLost.LOG);
				assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(7);
			});
	}

	@Test
	void autoConfigurationBacksOffWhenUserDefinesTemplate() {
		this.runner.withBean("myLocks", RedisLockTemplate.class, UserTemplate::new).run((context) -> {
			assertThat(context).hasSingleBean(RedisLockTemplate.class).hasBean("myLocks");
			assertThat(context).doesNotHaveBean(DefaultRedisLockTemplate.class);
		});
	}

	@Test
	void disabledRegistersNoBeans() {
		this.runner.withPropertyValues("redislock.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RedisLockTemplate.class);
			assertThat(context).doesNotHaveBean(DistributedLockAdvisor.class);
			assertThat(context).doesNotHaveBean(RedisLockProperties.class);
		});
	}

	@Test
	void noTemplateWithoutRedis() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockTemplate.class));
	}

	@Test
	void invalidKeyPrefixFailsAtStart() {
		this.runner.withPropertyValues("redislock.key-prefix=a{b}")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("'keyPrefix' must not contain"));
	}

	@Test
	void replicaAcknowledgementWithoutLettuceFailsAtStart() {
		// A connection factory of another client; the failure comes before any call.
		RedisConnectionFactory otherClient = (RedisConnectionFactory) Proxy.newProxyInstance(
				getClass().getClassLoader(), new Class<?>[] { RedisConnectionFactory.class },
				(proxy, method, args) -> switch (method.getName()) {
					case "toString" -> "OtherClientConnectionFactory";
					case "hashCode" -> System.identityHashCode(proxy);
					case "equals" -> proxy == args[0];
					default -> throw new UnsupportedOperationException(method.getName());
				});
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class))
			.withBean(RedisConnectionFactory.class, () -> otherClient)
			.withPropertyValues("redislock.min-replicas-acked=1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redislock.min-replicas-acked=1 needs Lettuce")
				.hasMessageContaining("redislock.min-replicas-acked=0"));
	}

	static class UserTemplate implements RedisLockTemplate {

		@Override
		public RedisLock getLock(String name) {
			throw new UnsupportedOperationException();
		}

		@Override
		public RedisReadWriteLock getReadWriteLock(String name) {
			throw new UnsupportedOperationException();
		}

		@Override
		public <T> T execute(String name, Duration waitTime, Duration leaseTime, LockCallback<T> action) {
			throw new UnsupportedOperationException();
		}

	}

}
