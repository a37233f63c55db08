package io.github.redislock.test.support;

import java.nio.file.Files;
import java.nio.file.Path;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@code redis:7} container; loaded only when Testcontainers is on the class path.
 */
final class RedisContainerProcess implements RedisProcess {

	private static final int REDIS_PORT = 6379;

	private final GenericContainer<?> container;

	private RedisContainerProcess(GenericContainer<?> container) {
		this.container = container;
	}

	/**
	 * Whether a Docker engine answers; asks Testcontainers only when there is a sign of
	 * one, so that machines without Docker do not wait for its search.
	 */
	static boolean dockerAnswers() {
		boolean hint = System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"));
		try {
			return hint && DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	@SuppressWarnings("resource")
	static RedisContainerProcess start() {
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse("redis:7"))
			.withExposedPorts(REDIS_PORT);
		container.start();
		return new RedisContainerProcess(container);
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(REDIS_PORT);
	}

	@Override
	public void stop() {
		this.container.stop();
	}

	@Override
	public String toString() {
		return "redis:7 container on " + host() + ":" + port();
	}

}
