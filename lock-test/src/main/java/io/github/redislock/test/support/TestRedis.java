package io.github.redislock.test.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * A real Redis for tests, with no persistence: a {@code redis} container when
 * Testcontainers is on the class path and a Docker engine answers, else a local
 * {@code redis-server} process on a free loopback port. The program is the one
 * {@code REDIS_SERVER} names (a path; a server named there is always run locally, even
 * when Docker answers), else {@code redis-server} on the {@code PATH}, else the binary
 * that the {@code embedded-redis} dependency ships (Redis 6.2). A process is stopped
 * through its own process handle.
 * <p>
 * {@link #shared()} is the JVM's one Redis, which {@link WithRedis} uses;
 * {@link #start()} starts another, stopped by {@link #close()}.
 *
 * @since 0.1.0
 */
public final class TestRedis implements AutoCloseable {

	private static final String DOCKER_CLIENT = "org.testcontainers.DockerClientFactory";

	private static final Object sharedMonitor = new Object();

	private static volatile @Nullable TestRedis shared;

	private final RedisProcess process;

	private TestRedis(RedisProcess process) {
		this.process = process;
	}

	/**
	 * Return the JVM's shared test Redis, started on the first call and stopped when the
	 * JVM exits.
	 * @return the shared Redis
	 */
	public static TestRedis shared() {
		TestRedis result = shared;
		if (result == null) {
			synchronized (sharedMonitor) {
				result = shared;
				if (result == null) {
					result = start();
					shared = result;
					Runtime.getRuntime().addShutdownHook(new Thread(result::close, "redislock-test-redis-stop"));
				}
			}
		}
		return result;
	}

	/**
	 * Start a Redis of its own, which the caller stops with {@link #close()} (and which
	 * stops at the latest when the JVM exits).
	 * @return the started Redis
	 */
	public static TestRedis start() {
		String program = RedisProgram.configured();
		if (program == null && ClassUtils.isPresent(DOCKER_CLIENT, TestRedis.class.getClassLoader())
				&& RedisContainerProcess.dockerAnswers()) {
			return new TestRedis(RedisContainerProcess.start());
		}
		return new TestRedis(LocalRedisProcess.start((program != null) ? program : RedisProgram.find()));
	}

	/**
	 * Return the host to connect to.
	 * @return the host
	 */
	public String host() {
		return this.process.host();
	}

	/**
	 * Return the port to connect to.
	 * @return the port
	 */
	public int port() {
		return this.process.port();
	}

	/**
	 * Return the {@code redis://host:port} URI of this Redis.
	 * @return the URI
	 */
	public String uri() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * Return whether this Redis runs in a container rather than as a local process.
	 * @return whether it is a container
	 */
	public boolean isContainer() {
		return this.process instanceof RedisContainerProcess;
	}

	/**
	 * Return the Spring Boot properties that point an application at this Redis, for an
	 * application started by the test itself ({@code SpringApplicationBuilder}). The URL
	 * is set too, and TLS off: Spring Boot takes TLS from a {@code rediss://} URL of the
	 * application's own configuration whatever else points elsewhere, and the test Redis
	 * speaks plain text.
	 * @return {@code spring.data.redis.host}, {@code spring.data.redis.port},
	 * {@code spring.data.redis.url} and {@code spring.data.redis.ssl.enabled=false}
	 */
	public Map<String, String> springProperties() {
		return Map.of("spring.data.redis.host", host(), "spring.data.redis.port", Integer.toString(port()),
				"spring.data.redis.url", uri(), "spring.data.redis.ssl.enabled", "false");
	}

	/**
	 * Return {@link #springProperties()} as command-line arguments
	 * ({@code --spring.data.redis.host=...}), for {@code SpringApplication.run}.
	 * @return the arguments
	 */
	public String[] springArguments() {
		return springProperties().entrySet()
			.stream()
			.map((property) -> "--" + property.getKey() + "=" + property.getValue())
			.sorted()
			.toArray(String[]::new);
	}

	/**
	 * Delete every key of every database ({@code FLUSHALL}).
	 */
	public void flushAll() {
		String answer = command("FLUSHALL");
		if (!"+OK".equals(answer)) {
			throw new IllegalStateException("FLUSHALL on " + this + " answered " + answer);
		}
	}

	/**
	 * Send one inline command and return the first line of its answer.
	 */
	String command(String command) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host(), port()), 2000);
			socket.setSoTimeout(10_000);
			OutputStream out = socket.getOutputStream();
			out.write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
			out.flush();
			String answer = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))
				.readLine();
			return (answer != null) ? answer : "(connection closed)";
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not send " + command + " to " + this, ex);
		}
	}

	/**
	 * Stop this Redis. The {@linkplain #shared() shared} one is stopped when the JVM
	 * exits, and refuses to be stopped before.
	 */
	@Override
	public void close() {
		if (this == shared && !Thread.currentThread().getName().equals("redislock-test-redis-stop")) {
			throw new IllegalStateException("The shared test Redis stops when the JVM exits; start one of your own"
					+ " with TestRedis.start() to stop it earlier");
		}
		this.process.stop();
	}

	@Override
	public String toString() {
		return this.process.toString();
	}

}
