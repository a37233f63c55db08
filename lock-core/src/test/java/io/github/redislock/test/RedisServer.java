package io.github.redislock.test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A real Redis server for tests: a local {@code redis-server} process, a Testcontainers
 * container, or the server named by {@code REDIS_URL}. Closing it closes the connection
 * factories it handed out, then stops the server if the fixture started it.
 */
public abstract class RedisServer implements RedisTarget, AutoCloseable {

	private final ConnectionFactories factories = new ConnectionFactories();

	public abstract String host();

	public abstract int port();

	/**
	 * Return the password, or {@code null} when the server needs none.
	 */
	public String password() {
		return null;
	}

	/**
	 * Return the server as a {@code redis://} URI.
	 */
	public String uri() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * Return a new, started connection factory of its own (as a separate application
	 * instance would have), closed with the server.
	 */
	@Override
	public LettuceConnectionFactory connectionFactory() {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(host(), port());
		if (password() != null) {
			configuration.setPassword(password());
		}
		return started(new LettuceConnectionFactory(configuration));
	}

	/**
	 * Start a connection factory and close it with the server.
	 */
	protected final LettuceConnectionFactory started(LettuceConnectionFactory factory) {
		return this.factories.start(factory);
	}

	/**
	 * Return a template on a new connection factory, for tests that look at Redis
	 * directly.
	 */
	@Override
	public StringRedisTemplate template() {
		return new StringRedisTemplate(connectionFactory());
	}

	/**
	 * Return the Spring Boot properties that point an application at this server.
	 */
	public String[] springProperties() {
		return new String[] { "spring.data.redis.host=" + host(), "spring.data.redis.port=" + port(),
				"spring.data.redis.password=" + ((password() != null) ? password() : "") };
	}

	@Override
	public void close() {
		this.factories.close();
		stop();
	}

	protected abstract void stop();

}
