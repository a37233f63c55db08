package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.test.RedisTarget;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Creates lock templates on their own connection factories — each one like a separate
 * application instance — and destroys them after the test, with the connection factories
 * it started for them.
 */
final class LockTemplates implements AutoCloseable {

	private final RedisTarget redis;

	private final List<DefaultRedisLockTemplate> templates = new ArrayList<>();

	private final List<RedLockTemplate> redLocks = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	LockTemplates(RedisTarget redis) {
		this.redis = redis;
	}

	DefaultRedisLockTemplate create() {
		return create(LockSettings.DEFAULTS);
	}

	DefaultRedisLockTemplate create(Duration leaseTime) {
		return create(LockSettings.DEFAULTS.withLeaseTime(leaseTime));
	}

	DefaultRedisLockTemplate create(LockSettings settings) {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(this.redis.connectionFactory(), settings);
		this.templates.add(template);
		return template;
	}

	/**
	 * Create a template on {@code connectionFactory} (one through a proxy, say).
	 */
	DefaultRedisLockTemplate create(RedisConnectionFactory connectionFactory, Duration leaseTime) {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(connectionFactory,
				LockSettings.DEFAULTS.withLeaseTime(leaseTime));
		this.templates.add(template);
		return template;
	}

	/**
	 * Return a started Lettuce factory for {@code host:port} whose commands time out
	 * after {@code commandTimeout}, destroyed with the templates.
	 */
	LettuceConnectionFactory factory(String host, int port, Duration commandTimeout) {
		return started(new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build()));
	}

	/**
	 * Start {@code factory} and destroy it with the templates.
	 */
	LettuceConnectionFactory started(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return factory;
	}

	/**
	 * Create a RedLock template over {@code nodes}, each reached through a connection
	 * factory of its own (another application instance of the same RedLock).
	 */
	RedLockTemplate createRedLock(List<? extends RedisTarget> nodes, LockSettings settings,
			RedLockSettings redLockSettings) {
		RedLockTemplate template = new RedLockTemplate(nodes.stream().map(RedisTarget::connectionFactory).toList(),
				settings, redLockSettings);
		this.redLocks.add(template);
		return template;
	}

	@Override
	public void close() throws Exception {
		for (DefaultRedisLockTemplate template : this.templates) {
			template.destroy();
		}
		for (RedLockTemplate template : this.redLocks) {
			template.destroy();
		}
		this.templates.clear();
		this.redLocks.clear();
		for (LettuceConnectionFactory factory : this.factories) {
			factory.destroy();
		}
		this.factories.clear();
	}

}
