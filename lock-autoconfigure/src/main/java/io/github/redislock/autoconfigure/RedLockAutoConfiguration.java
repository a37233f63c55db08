package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.redislock.internal.aop.InvalidLockDefinitionException;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.internal.lock.RedLockSettings;
import io.github.redislock.internal.lock.RedLockTemplate;
import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Auto-configuration of the {@code redLockTemplate} bean when
 * {@code redislock.redlock.nodes} lists RedLock nodes. The primary
 * {@link io.github.redislock.core.RedisLockTemplate} stays on the application's Redis.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RedisLockAutoConfiguration.class, SslAutoConfiguration.class })
@ConditionalOnClass(RedisClient.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@Conditional(RedLockAutoConfiguration.OnRedLockNodes.class)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedLockNodeConnections redLockNodeConnections(RedisLockProperties properties,
			ObjectProvider<SslBundles> sslBundles) {
		Duration nodeTimeout = properties.getRedlock().getNodeTimeout();
		// A call that outlives its attempt is abandoned; the client timeout only bounds
		// it.
		return new RedLockNodeConnections(properties.getRedlock().getNodes(),
				nodeTimeout.multipliedBy(10).plusSeconds(1), sslBundle(properties.getRedlock(), sslBundles));
	}

	private static @Nullable SslBundle sslBundle(RedisLockProperties.Redlock redlock,
			ObjectProvider<SslBundles> sslBundles) {
		String name = redlock.getSslBundle();
		if (name == null || name.isBlank()) {
			return null;
		}
		SslBundles bundles = sslBundles.getIfAvailable();
		if (bundles == null) {
			throw new InvalidLockDefinitionException(
					"redislock.redlock.ssl-bundle names SSL bundle '" + name
							+ "' but the application has no SslBundles (Spring Boot's SslAutoConfiguration is off)",
					"Let Spring Boot's SslAutoConfiguration run and define the bundle under spring.ssl.bundle.*,"
							+ " or remove redislock.redlock.ssl-bundle");
		}
		// An unknown name fails with Spring Boot's own NoSuchSslBundleException, which
		// names it.
		return bundles.getBundle(name);
	}

	@Bean
	@ConditionalOnMissingBean(name = "redLockTemplate")
	RedLockTemplate redLockTemplate(RedLockNodeConnections connections, RedisLockProperties properties,
			ApplicationEventPublisher eventPublisher, Environment environment) {
		RedisLockProperties.Redlock redlock = properties.getRedlock();
		RedLockTemplate template = new RedLockTemplate(connections.factories(),
				new LockSettings(properties.getKeyPrefix(), properties.getLeaseTime(), properties.getOnLockLost())
					.withMaxHold(properties.getMaxHold()),
				new RedLockSettings(redlock.getNodeTimeout(), redlock.getRetryDelay(), redlock.getClockDriftFactor()));
		template.setLockLostListener(eventPublisher::publishEvent);
		template.setInterruptOnLockLost(properties.isInterruptOnLockLost());
		template.setApplicationName(environment.getProperty("spring.application.name", ""));
		return template;
	}

	/**
	 * Matches when {@code redislock.redlock.nodes} is set and not empty.
	 */
	static class OnRedLockNodes extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			List<String> nodes = Binder.get(context.getEnvironment())
				.bind("redislock.redlock.nodes", Bindable.listOf(String.class))
				.orElse(List.of());
			return nodes.isEmpty() ? ConditionOutcome.noMatch("no redislock.redlock.nodes")
					: ConditionOutcome.match(nodes.size() + " RedLock node(s) configured");
		}

	}

}
