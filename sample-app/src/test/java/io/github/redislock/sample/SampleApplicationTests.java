package io.github.redislock.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample application end to end: two instances against one real Redis and one
 * database.
 */
@ExtendWith(RedisExtension.class)
class SampleApplicationTests {

	private ConfigurableApplicationContext instance(RedisServer redis, String database) {
		List<String> properties = new ArrayList<>(Arrays.asList(redis.springProperties()));
		properties.add("spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
		properties.add("sample.lottery.cron=-");
		properties.add("sample.checkout.max-concurrent=4");
		return new SpringApplicationBuilder(SampleApplication.class).web(WebApplicationType.NONE)
			.run(arguments(properties.toArray(String[]::new)));
	}

	@Test
	void flashSaleOnTwoInstancesNeverOversellsRunsAtMostFourCheckoutsAtOnceAndFulfilsEveryOrderOnce(RedisServer redis)
			throws Exception {
		String database = "sale-" + UUID.randomUUID();
		try (ConfigurableApplicationContext first = instance(redis, database);
				ConfigurableApplicationContext second = instance(redis, database)) {
			String item = "lamp-" + UUID.randomUUID();
			first.getBean(FlashSale.class).start(item, 100);
			redis.template().delete(Checkout.PEAK);
			List<Checkout> instances = List.of(first.getBean(Checkout.class), second.getBean(Checkout.class));
			ExecutorService buyers = Executors.newFixedThreadPool(16);
			try {
				List<Future<String>> orders = new ArrayList<>();
				for (int i = 0; i < 400; i++) {
					Checkout checkout = instances.get(i % 2);
					String buyer = "buyer-" + i;
					orders.add(buyers.submit(() -> checkout.checkout(item, buyer)));
				}
				int sold = 0;
				for (Future<String> order : orders) {
					sold += (order.get(2, TimeUnit.MINUTES) != null) ? 1 : 0;
				}
				assertThat(sold).isEqualTo(100);
			}
			finally {
				buyers.shutdownNow();
			}
			assertThat(first.getBean(FlashSale.class).left(item)).isZero();
			assertThat(first.getBean(Checkout.class).peakConcurrent()).as("checkouts at once, both instances")
				.isBetween(2L, 4L);
			Fulfilment fulfilment = first.getBean(Fulfilment.class);
			await().atMost(Duration.ofMinutes(1)).until(() -> fulfilment.fulfilled(item) == 100);
			assertThat(fulfilment.duplicates(item)).isZero();
		}
	}

	@Test
	void lotteryRunOnEveryInstanceIsDrawnOnce(RedisServer redis) throws Exception {
		String database = "lottery-" + UUID.randomUUID();
		try (ConfigurableApplicationContext first = instance(redis, database);
				ConfigurableApplicationContext second = instance(redis, database)) {
			LocalDate day = LocalDate.of(2026, 11, 22);
			ExecutorService instances = Executors.newFixedThreadPool(2);
			try {
				Future<List<String>> a = instances.submit(() -> first.getBean(Lottery.class).draw(day));
				Future<List<String>> b = instances.submit(() -> second.getBean(Lottery.class).draw(day));
				List<String> drawnByA = a.get(1, TimeUnit.MINUTES);
				List<String> drawnByB = b.get(1, TimeUnit.MINUTES);
				int draws = ((drawnByA != null && !drawnByA.isEmpty()) ? 1 : 0)
						+ ((drawnByB != null && !drawnByB.isEmpty()) ? 1 : 0);
				assertThat(draws).isEqualTo(1);
			}
			finally {
				instances.shutdownNow();
			}
			Lottery lottery = first.getBean(Lottery.class);
			assertThat(lottery.winners(day)).hasSize(10).doesNotHaveDuplicates();
			assertThat(second.getBean(Lottery.class).draw(day)).as("a second draw for the day").isEmpty();
			assertThat(lottery.winners(day)).hasSize(10);
		}
	}

	@Test
	void demoOverTwoHttpInstancesSellsExactlyTheStockAndDrawsTheLotteryOnce(RedisServer redis) throws Exception {
		Demo.Result result = Demo.run(arguments(redis.springProperties()));
		assertThat(result.sold()).isEqualTo(Demo.ITEMS);
		assertThat(result.oversold()).isZero();
		assertThat(result.fulfilled()).isEqualTo(Demo.ITEMS);
		assertThat(result.duplicates()).isZero();
		assertThat(result.winners()).isEqualTo(10);
		assertThat(result.draws()).isEqualTo(1);
	}

	@Test
	void redislockEndpointIsReadOnlyUntilItsAccessIsOpened(RedisServer redis) throws Exception {
		for (boolean opened : new boolean[] { false, true }) {
			List<String> properties = new ArrayList<>(Arrays.asList(redis.springProperties()));
			properties.add("spring.datasource.url=jdbc:h2:mem:endpoint-" + UUID.randomUUID());
			properties.add("sample.lottery.cron=-");
			properties.add("sample.checkout.max-concurrent=4");
			properties.add("server.port=0");
			if (opened) {
				properties.add("management.endpoint.redislock.access=unrestricted");
			}
			ExecutorService holder = Executors.newSingleThreadExecutor();
			try (ConfigurableApplicationContext app = new SpringApplicationBuilder(SampleApplication.class)
				.web(WebApplicationType.SERVLET)
				.run(arguments(properties.toArray(String[]::new)))) {
				String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port")
						+ "/actuator/redislock";
				String name = "stuck-" + UUID.randomUUID();
				RedisLock lock = app.getBean(RedisLockTemplate.class).getLock(name);
				assertThat(holder.submit(() -> lock.tryLock(Duration.ZERO, null)).get()).isTrue();
				HttpClient http = HttpClient.newHttpClient();
				HttpResponse<String> read = http.send(HttpRequest.newBuilder(URI.create(base)).GET().build(),
						HttpResponse.BodyHandlers.ofString());
				assertThat(read.statusCode()).isEqualTo(200);
				assertThat(read.body()).contains(name);
				HttpResponse<String> delete = http.send(
						HttpRequest.newBuilder(URI.create(base + "/" + name)).DELETE().build(),
						HttpResponse.BodyHandlers.ofString());
				if (opened) {
					assertThat(delete.statusCode()).isEqualTo(200);
					assertThat(delete.body()).contains("\"deleted\":true");
					assertThat(lock.isLocked()).isFalse();
				}
				else {
					assertThat(delete.statusCode()).as("no delete operation while read-only").isNotEqualTo(200);
					assertThat(lock.isLocked()).isTrue();
				}
				HttpResponse<String> pause = http.send(HttpRequest.newBuilder(URI.create(base + "/queues/fulfilment"))
					.header("Content-Type", "application/json")
					.POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"pause\"}"))
					.build(), HttpResponse.BodyHandlers.ofString());
				TaskQueue queue = app.getBean(TaskQueue.class);
				if (opened) {
					assertThat(pause.statusCode()).isEqualTo(200);
					assertThat(queue.isPaused("fulfilment")).isTrue();
					queue.resume("fulfilment");
				}
				else {
					assertThat(pause.statusCode()).as("no write operation while read-only").isNotEqualTo(200);
					assertThat(queue.isPaused("fulfilment")).isFalse();
				}
				HttpResponse<String> unknown = http.send(
						HttpRequest.newBuilder(URI.create(base + "/queues/no-such-queue")).GET().build(),
						HttpResponse.BodyHandlers.ofString());
				assertThat(unknown.statusCode()).isEqualTo(400);
				HttpResponse<String> oversized = http.send(
						HttpRequest.newBuilder(URI.create(base + "/queues/fulfilment?dead=5000")).GET().build(),
						HttpResponse.BodyHandlers.ofString());
				assertThat(oversized.statusCode()).isEqualTo(400);
				HttpResponse<String> details = http.send(
						HttpRequest.newBuilder(URI.create(base + "/queues/fulfilment?dead=5")).GET().build(),
						HttpResponse.BodyHandlers.ofString());
				assertThat(details.statusCode()).isEqualTo(200);
				assertThat(details.body()).contains("\"deadLetters\"").contains("\"paused\":false");
			}
			finally {
				holder.shutdownNow();
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
			.run(arguments("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"sample.lottery.cron=-", "spring.datasource.url=jdbc:h2:mem:embedded-" + UUID.randomUUID()))) {
			assertThat(answers(port)).isTrue();
			FlashSale sale = context.getBean(FlashSale.class);
			sale.start("mug", 1);
			assertThat(sale.buy("mug", "me")).isNotNull();
			assertThat(sale.buy("mug", "you")).isNull();
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
