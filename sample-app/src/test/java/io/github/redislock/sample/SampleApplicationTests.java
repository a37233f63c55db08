package io.github.redislock.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application against a real Redis.
 */
@ExtendWith(RedisExtension.class)
class SampleApplicationTests {

	@Test
	void concurrentBuyersNeverOversell(RedisServer redis) throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.web(WebApplicationType.NONE)
			.run(arguments(redis.springProperties()))) {
			StockService stock = context.getBean(StockService.class);
			stock.restock("lamp", 20);
			ExecutorService buyers = Executors.newFixedThreadPool(16);
			try {
				List<Future<Boolean>> results = new ArrayList<>();
				for (int i = 0; i < 60; i++) {
					results.add(buyers.submit(() -> stock.buy("lamp")));
				}
				int sold = 0;
				for (Future<Boolean> result : results) {
					sold += result.get(60, TimeUnit.SECONDS) ? 1 : 0;
				}
				assertThat(sold).isEqualTo(20);
				assertThat(stock.available("lamp")).isZero();
			}
			finally {
				buyers.shutdownNow();
			}
		}
	}

	@Test
	void startsAnEmbeddedRedisWhenNoneAnswersAndStopsItAfterwards() throws Exception {
		int port = freePort();
		SpringApplicationBuilder builder = new SpringApplicationBuilder(SampleApplication.class)
			.web(WebApplicationType.NONE)
			.listeners(new EmbeddedRedisFallback());
		try (ConfigurableApplicationContext context = builder
			.run(arguments("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port))) {
			assertThat(answers(port)).isTrue();
			StockService stock = context.getBean(StockService.class);
			stock.restock("mug", 1);
			assertThat(stock.buy("mug")).isTrue();
			assertThat(stock.buy("mug")).isFalse();
		}
		assertThat(answers(port)).isFalse();
	}

	/**
	 * As command-line arguments: they outrank application.yml, unlike default properties,
	 * so the test can never reach another Redis by accident.
	 */
	private static String[] arguments(String... properties) {
		return Arrays.stream(properties).map((property) -> "--" + property).toArray(String[]::new);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static boolean answers(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
