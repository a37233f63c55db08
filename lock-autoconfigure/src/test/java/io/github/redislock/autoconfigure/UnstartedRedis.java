package io.github.redislock.autoconfigure;

import java.lang.reflect.Proxy;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What the auto-configuration tests run without a Redis server: a connection factory that
 * is never asked for a connection, and beans of the application's own whose methods are
 * never called. The tests are about which beans the starter adds around them.
 */
final class UnstartedRedis {

	private UnstartedRedis() {
	}

	/**
	 * A context runner with the given auto-configurations and an unstarted connection
	 * factory named {@code redisConnectionFactory}.
	 */
	static ApplicationContextRunner runner(Class<?>... autoConfigurations) {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(autoConfigurations))
			.withBean("redisConnectionFactory", RedisConnectionFactory.class, UnstartedRedis::connectionFactory);
	}

	/** Points at a port nobody listens on; nothing here connects. */
	static LettuceConnectionFactory connectionFactory() {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1));
	}

	/**
	 * An implementation of the application's own whose methods, but {@code toString},
	 * {@code hashCode} and {@code equals}, throw.
	 */
	static <T> T unsupported(Class<T> type) {
		return type.cast(Proxy.newProxyInstance(UnstartedRedis.class.getClassLoader(), new Class<?>[] { type },
				(proxy, method, args) -> switch (method.getName()) {
					case "toString" -> type.getSimpleName() + " of the application";
					case "hashCode" -> System.identityHashCode(proxy);
					case "equals" -> proxy == args[0];
					default -> throw new UnsupportedOperationException(method.getName());
				}));
	}

}
