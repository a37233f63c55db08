package io.github.redislock.test;

import java.util.ArrayList;
import java.util.List;

/**
 * Independent local {@code redis-server} processes for one test class, started on demand
 * and stopped when the class finishes. Get one as a parameter under
 * {@link RedisExtension}.
 */
public final class RedisServers implements AutoCloseable {

	private final List<LocalRedisServer> servers = new ArrayList<>();

	/**
	 * Start one more independent server; extra {@code redis-server} arguments may follow.
	 */
	public synchronized LocalRedisServer start(String... extraArguments) {
		LocalRedisServer server = LocalRedisServer.start(extraArguments);
		this.servers.add(server);
		return server;
	}

	/**
	 * Start one more independent server that speaks TLS only, with the given
	 * certificates; extra {@code redis-server} arguments may follow.
	 */
	public synchronized LocalRedisServer startTls(TestCertificates certificates, String... extraArguments) {
		LocalRedisServer server = LocalRedisServer.startTls(certificates, extraArguments);
		this.servers.add(server);
		return server;
	}

	/**
	 * Restart a killed server on its port; the new one is stopped with the others.
	 */
	public synchronized LocalRedisServer restart(LocalRedisServer killed) {
		LocalRedisServer server = killed.restart();
		this.servers.add(server);
		return server;
	}

	@Override
	public synchronized void close() {
		this.servers.forEach(LocalRedisServer::close);
		this.servers.clear();
	}

}
