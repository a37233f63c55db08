package io.github.redislock.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.ClientOptions;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One Lettuce connection factory per RedLock node, made from
 * {@code redis://[user:password@]host:port[/database]} URIs ({@code rediss://} for TLS).
 * Commands to a node that is down are rejected at once rather than queued.
 */
public final class RedLockNodeConnections implements DisposableBean {

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	RedLockNodeConnections(List<String> nodes, Duration commandTimeout) {
		for (String node : nodes) {
			this.factories.add(start(node, commandTimeout));
		}
	}

	private static LettuceConnectionFactory start(String node, Duration commandTimeout) {
		URI uri;
		try {
			uri = URI.create(node.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"redislock.redlock.nodes: '" + redact(node) + "' is not a redis:// or rediss:// URI", ex);
		}
		boolean tls = "rediss".equals(uri.getScheme());
		if (!tls && !"redis".equals(uri.getScheme()) || uri.getHost() == null) {
			throw new IllegalArgumentException("redislock.redlock.nodes: '" + redact(node)
					+ "' must look like redis://[user:password@]host:port (rediss:// for TLS)");
		}
		RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(uri.getHost(),
				(uri.getPort() > 0) ? uri.getPort() : 6379);
		String userInfo = uri.getUserInfo();
		if (userInfo != null && !userInfo.isEmpty()) {
			int colon = userInfo.indexOf(':');
			if (colon >= 0) {
				if (colon > 0) {
					server.setUsername(userInfo.substring(0, colon));
				}
				server.setPassword(userInfo.substring(colon + 1));
			}
			else {
				server.setPassword(userInfo);
			}
		}
		String path = uri.getPath();
		if (path != null && path.length() > 1) {
			server.setDatabase(Integer.parseInt(path.substring(1)));
		}
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.clientOptions(ClientOptions.builder()
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.build());
		if (tls) {
			client.useSsl();
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(server, client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * The URI without its password, for messages: secrets are never logged.
	 */
	static String redact(String node) {
		return node.replaceAll("//([^:@/]*):[^@/]*@", "//$1:****@");
	}

	List<LettuceConnectionFactory> factories() {
		return this.factories;
	}

	@Override
	public void destroy() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

}
