package io.github.redislock.test.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The test Redis itself: one shared server per JVM, never the machine's own Redis, and
 * servers of one's own that stop on close.
 */
@WithRedis
class TestRedisTests {

	@Test
	void parameterIsTheSharedServerWhichAnswersAndIsNotTheMachinesRedis(TestRedis redis) {
		assertThat(redis).isSameAs(TestRedis.shared());
		assertThat(redis.command("PING")).isEqualTo("+PONG");
		if (!redis.isContainer()) {
			assertThat(redis.host()).isEqualTo("127.0.0.1");
			assertThat(redis.port()).isNotEqualTo(6379);
		}
		assertThat(redis.springArguments()).containsExactly("--spring.data.redis.host=" + redis.host(),
				"--spring.data.redis.port=" + redis.port(), "--spring.data.redis.ssl.enabled=false",
				"--spring.data.redis.url=redis://" + redis.host() + ":" + redis.port());
		assertThat(redis.uri()).isEqualTo("redis://" + redis.host() + ":" + redis.port());
	}

	@Test
	void flushAllEmptiesEveryDatabase(TestRedis redis) {
		assertThat(redis.command("SET kit:flush 1")).isEqualTo("+OK");
		redis.flushAll();
		assertThat(redis.command("EXISTS kit:flush")).isEqualTo(":0");
	}

	@Test
	void serverOfItsOwnIsAnotherAndStopsWhenClosed() {
		TestRedis own = TestRedis.start();
		int port = own.port();
		try {
			assertThat(own).isNotSameAs(TestRedis.shared());
			assertThat(port).isNotEqualTo(TestRedis.shared().port());
			assertThat(own.command("PING")).isEqualTo("+PONG");
		}
		finally {
			own.close();
		}
		if (!own.isContainer()) {
			assertThatThrownBy(() -> connect(port)).isInstanceOf(IOException.class);
		}
	}

	@Test
	void sharedServerRefusesToBeClosedBeforeTheJvmExits() {
		assertThatIllegalStateException().isThrownBy(() -> TestRedis.shared().close())
			.withMessageContaining("TestRedis.start()");
		assertThat(TestRedis.shared().command("PING")).isEqualTo("+PONG");
	}

	private static void connect(int port) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
		}
	}

}
