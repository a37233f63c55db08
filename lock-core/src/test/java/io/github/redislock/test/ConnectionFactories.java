package io.github.redislock.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The connection factories a fixture handed out, started on the way out and destroyed
 * together.
 */
final class ConnectionFactories implements AutoCloseable {

	private final List<LettuceConnectionFactory> factories = new CopyOnWriteArrayList<>();

	LettuceConnectionFactory start(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return factory;
	}

	@Override
	public void close() {
		for (LettuceConnectionFactory factory : this.factories) {
			try {
				factory.destroy();
			}
			catch (RuntimeException ex) {
				// Closing anyway: the server may already be gone.
			}
		}
		this.factories.clear();
	}

}
