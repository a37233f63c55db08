package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.internal.aop.InvalidLockDefinitionException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One Lettuce connection factory per RedLock node, made from
 * {@code redis://[user:password@]host:port[/database]} URIs ({@code rediss://} for TLS,
 * trusting the SSL bundle named by {@code redislock.redlock.ssl-bundle} when set).
 * Commands to a node that is down are rejected at once rather than queued.
 */
final class RedLockNodeConnections implements DisposableBean {

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	RedLockNodeConnections(List<String> nodes, Duration commandTimeout) {
		this(nodes, commandTimeout, null);
	}

	/**
	 * Connect to the nodes, the {@code rediss://} ones with the trust store (and key
	 * store) of {@code sslBundle} when given, else with the JVM's defaults.
	 */
	RedLockNodeConnections(List<String> nodes, Duration commandTimeout, @Nullable SslBundle sslBundle) {
		try {
			for (String node : nodes) {
				this.factories.add(start(node, commandTimeout, sslBundle));
			}
		}
		catch (RuntimeException ex) {
			// The nodes before the bad one are not left running.
			destroy();
			throw ex;
		}
	}

	private static LettuceConnectionFactory start(String node, Duration commandTimeout, @Nullable SslBundle sslBundle) {
		RedisStandaloneConfiguration server = new RedisStandaloneConfiguration();
		boolean tls;
		try {
			// Lettuce's own parser: the URI forms Spring Boot's spring.data.redis.url
			// takes.
			RedisURI uri = RedisURI.create(node.trim());
			if (uri.getSocket() != null || !uri.getSentinels().isEmpty()) {
				throw invalid(node, "a RedLock node is one server: use redis://host:port (rediss:// for TLS)");
			}
			String host = uri.getHost();
			if (host == null || host.isBlank() || host.contains(":") && !host.startsWith("[")
					|| !host.chars().allMatch((c) -> c < 128) || uri.getPort() < 1 || uri.getPort() > 65535) {
				throw invalid(node, "no valid host and port (got host '" + host + "', port " + uri.getPort()
						+ "); write redis://[user:password@]host:port");
			}
			server.setHostName(host);
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
		ClientOptions.Builder options = ClientOptions.builder()
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
		if (tls && sslBundle != null) {
			options.sslOptions(sslOptions(sslBundle));
		}
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.clientOptions(options.build());
		if (tls) {
			client.useSsl();
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(server, client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static SslOptions sslOptions(SslBundle bundle) {
		SslOptions.Builder ssl = SslOptions.builder()
			.keyManager(bundle.getManagers().getKeyManagerFactory())
			.trustManager(bundle.getManagers().getTrustManagerFactory());
		String[] ciphers = bundle.getOptions().getCiphers();
		if (ciphers != null) {
			ssl.cipherSuites(ciphers);
		}
		String[] protocols = bundle.getOptions().getEnabledProtocols();
		if (protocols != null) {
			ssl.protocols(protocols);
		}
		return ssl.build();
	}

	/**
	 * A bad node, named without its password. Not an
	 * {@code InvalidConfigurationPropertyValueException}: Spring Boot's report of one
	 * shows the property's whole value from the environment (every node's password, when
	 * the nodes are one comma-separated value).
	 */
	private static InvalidLockDefinitionException invalid(String node, String reason) {
		return new InvalidLockDefinitionException(
				"Invalid RedLock node '" + redact(node) + "' in redislock.redlock.nodes: " + reason,
				"Write each node of redislock.redlock.nodes as redis://[user:password@]host:port (rediss:// for TLS)");
	}

	/**
	 * The URI without its password, for messages: secrets are never logged. Everything
	 * between {@code //} and the last {@code @} is the user info (a password may hold
	 * {@code /} or {@code @}); only a user name before a {@code :} is kept.
	 */
	static String redact(String node) {
		int at = node.lastIndexOf('@');
		if (at < 0) {
			return node;
		}
		int start = node.indexOf("//");
		if (start < 0 || start > at) {
			// No scheme before the user info (a node written without redis://): nothing
			// before the @ is shown.
			return "****" + node.substring(at);
		}
		String userInfo = node.substring(start + 2, at);
		int colon = userInfo.indexOf(':');
		String user = (colon >= 0) ? userInfo.substring(0, colon + 1) : "";
		return node.substring(0, start + 2) + user + "****" + node.substring(at);
	}

	List<LettuceConnectionFactory> factories() {
		return this.factories;
	}

	@Override
	public void destroy() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

}
