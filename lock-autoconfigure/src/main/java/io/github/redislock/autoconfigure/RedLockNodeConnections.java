package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One Lettuce connection factory per RedLock node, made from
 * {@code redis://[user:password@]host:port[/database]} URIs ({@code rediss://} for TLS).
 * Commands to a node that is down are rejected at once rather than queued.
 */
final class RedLockNodeConnections implements DisposableBean {

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	RedLockNodeConnections(List<String> nodes, Duration commandTimeout) {
		for (String node : nodes) {
			this.factories.add(start(node, commandTimeout));
		}
	}

	private static LettuceConnectionFactory start(String node, Duration commandTimeout) {
		RedisStandaloneConfiguration server = new RedisStandaloneConfiguration();
		boolean tls;
		try {
			// Lettuce's own parser: the URI forms Spring Boot's spring.data.redis.url
			// takes.
			RedisURI uri = RedisURI.create(node.trim());
			if (uri.getSocket() != null || !uri.getSentinels().isEmpty()) {
				throw invalid(node, "a RedLock node is one server: use redis://host:port (rediss:// for TLS)");
			}
			server.setHostName(uri.getHost());
			server.setPort(uri.getPort());
			// A URI's credentials are static: resolved at once.
			RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
			if (credentials != null) {
				if (credentials.hasUsername()) {
					server.setUsername(credentials.getUsername());
				}
				if (credentials.hasPassword()) {
					server.setPassword(RedisPassword.of(credentials.getPassword()));
				}
			}
			server.setDatabase(uri.getDatabase());
			tls = uri.isSsl();
		}
		catch (IllegalArgumentException ex) {
			// Lettuce's message may repeat the URI, password and all: not passed on.
			throw invalid(node, "not a redis:// or rediss:// URI; write redis://[user:password@]host:port");
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

	private static InvalidConfigurationPropertyValueException invalid(String node, String reason) {
		return new InvalidConfigurationPropertyValueException("redislock.redlock.nodes", redact(node), reason);
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
