package io.github.redislock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The lock templates a test made, and the Lettuce connection factories under them,
 * destroyed together (templates first).
 */
public final class LockTemplates implements AutoCloseable {

	private final List<DefaultRedisLockTemplate> templates = new CopyOnWriteArrayList<>();

	private final ConnectionFactories factories = new ConnectionFactories();

	/**
	 * Return a started Lettuce factory for {@code host:port} (a proxy's, say) whose
	 * commands time out after {@code commandTimeout}.
	 */
	public LettuceConnectionFactory factory(String host, int port, Duration commandTimeout) {
		return this.factories.start(new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build()));
	}

	/**
	 * Start {@code factory} and destroy it with the rest.
	 */
	public LettuceConnectionFactory started(LettuceConnectionFactory factory) {
		return this.factories.start(factory);
	}

	/**
	 * Return a template on {@code connectionFactory} with the default settings but this
	 * lease time.
	 */
	public DefaultRedisLockTemplate template(RedisConnectionFactory connectionFactory, Duration leaseTime) {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(connectionFactory,
				LockSettings.DEFAULTS.withLeaseTime(leaseTime));
		this.templates.add(template);
		return template;
	}

	@Override
	public void close() throws Exception {
		for (DefaultRedisLockTemplate template : this.templates) {
			template.destroy();
		}
		this.templates.clear();
		this.factories.close();
	}

}
