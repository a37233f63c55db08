package io.github.redislock.test;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

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

}
