package io.github.redislock.test;

import java.nio.file.Files;
import java.nio.file.Path;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@code redis:7} container, used only when a Docker engine is reachable.
 */
final class ContainerRedisServer extends RedisServer {

	private final GenericContainer<?> container;

	private ContainerRedisServer(GenericContainer<?> container) {
		this.container = container;
	}

	/**
	 * Whether a Docker engine answers. Asks Testcontainers only when there is a sign of
	 * one, so machines without Docker do not pay for its search.
	 */
	static boolean dockerAvailable() {
		boolean hint = System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"));
		try {
			return hint && DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	@SuppressWarnings("resource")
	static ContainerRedisServer start() {
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse("redis:7")).withExposedPorts(6379);
		container.start();
		return new ContainerRedisServer(container);
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(6379);
	}

	@Override
	protected void stop() {
		this.container.stop();
	}

	@Override
	public String toString() {
		return "redis:7 container on port " + port();
	}

}
