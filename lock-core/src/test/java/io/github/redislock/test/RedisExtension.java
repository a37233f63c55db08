package io.github.redislock.test;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit extension that gives tests real Redis servers.
 * <p>
 * A parameter of type {@link RedisServer} (constructor, lifecycle or test method) gets
 * the test class's server: the one named by {@code REDIS_URL} when set; else a
 * {@code redis:7} container when a Docker engine is reachable and {@code REDIS_SERVER}
 * names no server; else a local {@code redis-server} process on a free loopback port. A
 * parameter of type {@link RedisServers} starts any number of further independent local
 * servers. A parameter of type {@link RedisTargets} gives contract suites the server or a
 * {@link RedisCluster} (one per JVM, stopped when the test run ends). Everything else
 * started is stopped when the test class finishes.
 */
public final class RedisExtension implements ParameterResolver {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Class<?> type = parameterContext.getParameter().getType();
		return type == RedisServer.class || type == RedisServers.class || type == RedisTargets.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		ExtensionContext.Store store = classContext(extensionContext).getStore(NAMESPACE);
		if (parameterContext.getParameter().getType() == RedisServers.class) {
			return store.computeIfAbsent(RedisServers.class, (key) -> new RedisServers(), RedisServers.class);
		}
		if (parameterContext.getParameter().getType() == RedisTargets.class) {
			ExtensionContext.Store root = extensionContext.getRoot().getStore(NAMESPACE);
			return new RedisTargets(
					() -> store.computeIfAbsent(RedisServer.class, (key) -> defaultServer(), RedisServer.class),
					() -> root.computeIfAbsent(RedisCluster.class, (key) -> RedisCluster.start(), RedisCluster.class));
		}
		return store.computeIfAbsent(RedisServer.class, (key) -> defaultServer(), RedisServer.class);
	}

	private static ExtensionContext classContext(ExtensionContext context) {
		ExtensionContext current = context;
		while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
			current = current.getParent().get();
		}
		return current;
	}

	static RedisServer defaultServer() {
		String url = System.getenv("REDIS_URL");
		if (url != null && !url.isBlank()) {
			return new ExternalRedisServer(url);
		}
		// A server named by REDIS_SERVER (the build's server matrix) is the one to test
		// on.
		if (RedisBinary.configured() == null && ContainerRedisServer.dockerAvailable()) {
			return ContainerRedisServer.start();
		}
		return LocalRedisServer.start();
	}

}
