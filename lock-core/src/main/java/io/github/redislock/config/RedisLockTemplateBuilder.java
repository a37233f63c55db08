package io.github.redislock.config;

import java.time.Duration;

import io.github.redislock.core.OnLockLost;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.HashTags;
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

	// Kept apart and checked together by build(): a check across settings (the maximum
	// hold against the lease) must not depend on the order in which they are set.
	private String keyPrefix = LockSettings.DEFAULTS.keyPrefix();

	private Duration leaseTime = LockSettings.DEFAULTS.leaseTime();

	private OnLockLost onLockLost = LockSettings.DEFAULTS.onLockLost();

	private int minReplicasAcked = LockSettings.DEFAULTS.minReplicasAcked();

	private Duration replicaAckTimeout = LockSettings.DEFAULTS.replicaAckTimeout();

	private @Nullable Duration maxHold = LockSettings.DEFAULTS.maxHold();

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
		// Checked at once: a prefix is wrong whatever else is set.
		HashTags.checkPrefix(keyPrefix);
		this.keyPrefix = keyPrefix;
		return this;
	}

	/**
	 * Set the lease of locks taken without a fixed lease, renewed by the watchdog every
	 * third of it ({@code redislock.lease-time}, default 30 s).
	 * @param leaseTime the lease, at least 30 ms
	 * @return this builder
	 */
	public RedisLockTemplateBuilder leaseTime(Duration leaseTime) {
		// Checked at once on its own (the defaults have no maximum hold).
		LockSettings.DEFAULTS.withLeaseTime(leaseTime);
		this.leaseTime = leaseTime;
		return this;
	}

	/**
	 * Set what releasing a lost lock does ({@code redislock.on-lock-lost}, default
	 * {@link OnLockLost#THROW}).
	 * @param onLockLost the behaviour
	 * @return this builder
	 */
	public RedisLockTemplateBuilder onLockLost(OnLockLost onLockLost) {
		LockSettings.DEFAULTS.withOnLockLost(onLockLost);
		this.onLockLost = onLockLost;
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
		LockSettings.DEFAULTS.withReplicaAcknowledgement(minReplicasAcked, timeout);
		this.minReplicasAcked = minReplicasAcked;
		this.replicaAckTimeout = timeout;
		return this;
	}

	/**
	 * Set how long the watchdog renews a hold at most ({@code redislock.max-hold},
	 * default no limit).
	 * @param maxHold the limit, not shorter than the lease; {@code null} for none
	 * @return this builder
	 */
	public RedisLockTemplateBuilder maxHold(@Nullable Duration maxHold) {
		// Checked against the lease by build(), whichever of the two is set first.
		this.maxHold = maxHold;
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
	 * @throws IllegalArgumentException when the settings do not go together (a maximum
	 * hold shorter than the lease)
	 */
	public RedisLockTemplate build() {
		LockSettings settings = new LockSettings(this.keyPrefix, this.leaseTime, this.onLockLost, this.minReplicasAcked,
				this.replicaAckTimeout, this.maxHold);
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(this.connectionFactory, settings);
		if (this.applicationName != null) {
			template.setApplicationName(this.applicationName);
		}
		return template;
	}

}
