package io.github.redislock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import redis.embedded.RedisServer;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.Environment;

/**
 * Starts an embedded Redis for the demo when nothing answers at the configured local
 * Redis address, so that the sample runs on a machine with only a JDK. Only the sample
 * does this: the starter always uses the Redis the application configures. Either way,
 * one INFO line at start says which Redis the sample uses ({@code Redis for this sample:
 * host:port ...}) and whether it is an embedded one.
 * <p>
 * Off with {@code sample.embedded-redis=false}; never for a remote host or a
 * {@code spring.data.redis.url}.
 */
class EmbeddedRedisFallback implements ApplicationListener<ApplicationEvent> {

	private static final Log logger = LogFactory.getLog(EmbeddedRedisFallback.class);

	private RedisServer server;

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		// Spring AOT runs main at build time to prepare the context, never to serve.
		if (Boolean.getBoolean("spring.aot.processing")) {
			return;
		}
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			startIfNeeded(prepared.getEnvironment());
		}
		else if (event instanceof ContextClosedEvent || event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	private void startIfNeeded(Environment environment) {
		String url = environment.getProperty("spring.data.redis.url");
		if (url != null && !url.isBlank()) {
			URI uri = URI.create(url);
			logger.info("Redis for this sample: " + uri.getHost() + ":" + ((uri.getPort() != -1) ? uri.getPort() : 6379)
					+ " (spring.data.redis.url); no embedded Redis started");
			return;
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		boolean wanted = environment.getProperty("sample.embedded-redis", Boolean.class, true);
		boolean local = host.equals("localhost") || host.startsWith("127.");
		if (!wanted || !local || answers(host, port)) {
			logger.info("Redis for this sample: " + host + ":" + port
					+ " (spring.data.redis.*); no embedded Redis started");
			return;
		}
		try {
			this.server = RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("save \"\"").build();
			this.server.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(
					"No Redis answered at " + host + ":" + port
							+ " and the embedded Redis could not start; start a Redis there or set spring.data.redis.*",
					ex);
		}
		logger.info("Redis for this sample: 127.0.0.1:" + port + ", EMBEDDED: nothing answered at " + host + ":" + port
				+ ", so the sample started one; it keeps nothing and stops with the application (point"
				+ " spring.data.redis.* at a real Redis for anything else)");
	}

	private static boolean answers(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private synchronized void stop() {
		if (this.server != null) {
			try {
				this.server.stop();
				logger.info("Stopped the embedded Redis");
			}
			catch (IOException ex) {
				logger.warn("Could not stop the embedded Redis", ex);
			}
			this.server = null;
		}
	}

}
