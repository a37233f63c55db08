package io.github.redislock.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The fixture itself: real servers, independent of each other, stopped by their handle.
 */
@ExtendWith(RedisExtension.class)
class RedisFixtureTests {

	@Test
	void independentServersDoNotShareData(RedisServers servers) {
		LocalRedisServer first = servers.start();
		LocalRedisServer second = servers.start();
		assertThat(first.port()).isNotEqualTo(second.port()).isNotEqualTo(6379);
		first.template().opsForValue().set("k", "first");
		assertThat(second.template().opsForValue().get("k")).isNull();
	}

	@Test
	void proxyCountsTheCommandsClientsSendAndCutsConnections(RedisServers servers) {
		LocalRedisServer server = servers.start();
		try (TcpProxy proxy = TcpProxy.to(server)) {
			StringRedisTemplate redis = new StringRedisTemplate(proxy.connectionFactory());
			redis.opsForValue().set("warm", "up");
			long before = proxy.requests();
			// A value that looks like RESP must not be counted as commands.
			redis.opsForValue().set("tricky", "*3\r\n$3\r\nSET\r\n*1\r\n".repeat(2000));
			assertThat(redis.opsForValue().get("tricky")).startsWith("*3\r\n");
			redis.delete("tricky");
			assertThat(proxy.requests() - before).isEqualTo(3);
			long connections = proxy.acceptedConnections();
			proxy.cutConnections();
			assertThat(redis.opsForValue().get("warm")).as("the client reconnects").isEqualTo("up");
			assertThat(proxy.acceptedConnections()).isGreaterThan(connections);
		}
	}

	@Test
	void closingAServerStopsItsProcess() {
		LocalRedisServer server = LocalRedisServer.start();
		int port = server.port();
		assertThat(LocalRedisServer.answersPing(port)).isTrue();
		server.close();
		assertThat(server.isAlive()).isFalse();
		assertThat(LocalRedisServer.answersPing(port)).isFalse();
	}

	@Test
	void bundledRedisServerRunsWhenNoneIsInstalled() {
		try (LocalRedisServer server = LocalRedisServer.startProgram(RedisBinary.bundled().toString())) {
			StringRedisTemplate redis = server.template();
			redis.opsForValue().set("k", "v");
			assertThat(redis.opsForValue().get("k")).isEqualTo("v");
		}
	}

	@Test
	void aMatrixServerIsFoundByItsNameInTheCache(@TempDir Path cache) throws IOException {
		for (String version : List.of("valkey-9.0.1", "valkey-9.1.2", "valkey-10.0.0", "redis-8.0.6")) {
			Path binary = Files.createDirectories(cache.resolve(version))
				.resolve(version.replaceFirst("-.*", "") + "-server");
			Files.writeString(binary, "#!/bin/sh\n");
			assertThat(binary.toFile().setExecutable(true)).isTrue();
		}
		assertThat(RedisBinary.cached("valkey-9", cache, true)).endsWith("valkey-9.1.2/valkey-server");
		assertThat(RedisBinary.cached("valkey", cache, true)).endsWith("valkey-10.0.0/valkey-server");
		assertThat(RedisBinary.cached("redis-8", cache, true)).endsWith("redis-8.0.6/redis-server");
		// Not built: the tests that need it are skipped, or fail where the matrix is
		// required.
		assertThatExceptionOfType(TestAbortedException.class)
			.isThrownBy(() -> RedisBinary.cached("redis-9", cache, false))
			.withMessageContaining(".ci/build-servers");
		assertThatIllegalStateException().isThrownBy(() -> RedisBinary.cached("redis-9", cache, true))
			.withMessageContaining("redis-9");
	}

}
