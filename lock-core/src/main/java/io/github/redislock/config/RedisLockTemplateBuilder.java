package io.github.redislock.config;

import java.time.Duration;

import io.github.redislock.core.OnLockLost;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * Builds a {@link RedisLockTemplate} without Spring Boot, with the defaults the
 * auto-configuration's properties have: <pre class="code">
 * &#64;Bean
 * RedisLockTemplate redisLockTemplate(RedisConnectionFactory connectionFactory) {
 *     return RedisLockTemplateBuilder.forConnectionFactory(connectionFactory)
 *         .keyPrefix("orders")
 *         .build();
 * }
 * </pre> Declare the template as a bean: the application context starts it, and at
 * shutdown releases the locks it still holds before the connection factory stops. A
 * template made outside a context is closed with {@code ((DisposableBean) template)
 * .destroy()}.
 *
 * @since 0.1.0
 */
public final class RedisLockTemplateBuilder {

	private final RedisConnectionFactory connectionFactory;

	private LockSettings settings = LockSettings.DEFAULTS;

	private @Nullable String applicationName;

	private RedisLockTemplateBuilder(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Start a builder of a template on the given connection factory (Lettuce or Jedis;
	 * Lettuce is needed for release notifications on a Cluster and for replica
	 * acknowledgement).
	 * @param connectionFactory the application's connection factory
	 * @return the builder
	 */
	public static RedisLockTemplateBuilder forConnectionFactory(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		return new RedisLockTemplateBuilder(connectionFactory);
	}

	/**
	 * Set the prefix of every key and channel the locks use
	 * ({@code redislock.key-prefix}, default {@code redislock}).
	 * @param keyPrefix the prefix; no braces
	 * @return this builder
	 */
	public RedisLockTemplateBuilder keyPrefix(String keyPrefix) {
		this.settings = new LockSettings(keyPrefix, this.settings.leaseTime(), this.settings.onLockLost(),
				this.settings.minReplicasAcked(), this.settings.replicaAckTimeout(), this.settings.maxHold());
		return this;
	}

	/**
	 * Set the lease of locks taken without a fixed lease, renewed by the watchdog every
	 * third of it ({@code redislock.lease-time}, default 30 s).
	 * @param leaseTime the lease, at least 30 ms
	 * @return this builder
	 */
	public RedisLockTemplateBuilder leaseTime(Duration leaseTime) {
		this.settings = this.settings.withLeaseTime(leaseTime);
		return this;
	}

	/**
	 * Set what releasing a lost lock does ({@code redislock.on-lock-lost}, default
	 * {@link OnLockLost#THROW}).
	 * @param onLockLost the behaviour
	 * @return this builder
	 */
	public RedisLockTemplateBuilder onLockLost(OnLockLost onLockLost) {
		this.settings = this.settings.withOnLockLost(onLockLost);
		return this;
	}

	/**
	 * Require replicas to confirm each acquisition ({@code redislock.min-replicas-acked}
	 * and {@code redislock.replica-ack-timeout}; default none).
	 * @param minReplicasAcked replicas that must confirm; 0 for none
	 * @param timeout how long to wait for them
	 * @return this builder
	 */
	public RedisLockTemplateBuilder replicaAcknowledgement(int minReplicasAcked, Duration timeout) {
		this.settings = this.settings.withReplicaAcknowledgement(minReplicasAcked, timeout);
		return this;
	}

	/**
	 * Set how long the watchdog renews a hold at most ({@code redislock.max-hold},
	 * default no limit).
	 * @param maxHold the limit, not shorter than the lease; {@code null} for none
	 * @return this builder
	 */
	public RedisLockTemplateBuilder maxHold(@Nullable Duration maxHold) {
		this.settings = this.settings.withMaxHold(maxHold);
		return this;
	}

	/**
	 * Set the application name that {@code RedisLock.holder()} reports for this instance
	 * ({@code spring.application.name} in a Boot application).
	 * @param applicationName the name
	 * @return this builder
	 */
	public RedisLockTemplateBuilder applicationName(String applicationName) {
		this.applicationName = applicationName;
		return this;
	}

	/**
	 * Build the template.
	 * @return a new template, to be declared as a bean
	 */
	public RedisLockTemplate build() {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(this.connectionFactory, this.settings);
		if (this.applicationName != null) {
			template.setApplicationName(this.applicationName);
		}
		return template;
	}

}
