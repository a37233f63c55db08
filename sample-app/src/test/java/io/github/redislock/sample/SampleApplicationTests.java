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
import io.github.redislock.test.support.TaskQueueTestSupport;
import io.github.redislock.test.support.TestRedis;
import io.github.redislock.test.support.WithRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application end to end: two instances against one real Redis and one
 * database.
 */
@WithRedis
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationTests {

	private ConfigurableApplicationContext instance(TestRedis redis, String database) {
		List<String> properties = new ArrayList<>(Arrays.asList(properties(redis)));
		properties.add("spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
		properties.add("sample.lottery.cron=-");
		properties.add("sample.checkout.max-concurrent=4");
		return new SpringApplicationBuilder(SampleApplication.class).web(WebApplicationType.NONE)
			.run(arguments(properties.toArray(String[]::new)));
	}

	@Test
	void flashSaleOnTwoInstancesNeverOversellsRunsAtMostFourCheckoutsAtOnceAndFulfilsEveryOrderOnce(TestRedis redis)
			throws Exception {
		String database = "sale-" + UUID.randomUUID();
		try (ConfigurableApplicationContext first = instance(redis, database);
				ConfigurableApplicationContext second = instance(redis, database)) {
			String item = "lamp-" + UUID.randomUUID();
			first.getBean(FlashSale.class).start(item, 100);
			first.getBean(StringRedisTemplate.class).delete(Checkout.PEAK);
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
			new TaskQueueTestSupport(first).awaitDrained("fulfilment", Duration.ofMinutes(1));
			assertThat(fulfilment.fulfilled(item)).isEqualTo(100);
			assertThat(fulfilment.duplicates(item)).isZero();
		}
	}

	@Test
	void lotteryRunOnEveryInstanceIsDrawnOnce(TestRedis redis) throws Exception {
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
	void demoOverTwoHttpInstancesSellsExactlyTheStockAndDrawsTheLotteryOnce(TestRedis redis) throws Exception {
		Demo.Result result = Demo.run(arguments(properties(redis)));
		assertThat(result.sold()).isEqualTo(Demo.ITEMS);
		assertThat(result.oversold()).isZero();
		assertThat(result.fulfilled()).isEqualTo(Demo.ITEMS);
		assertThat(result.duplicates()).isZero();
		assertThat(result.winners()).isEqualTo(10);
		assertThat(result.draws()).isEqualTo(1);
	}

	private static final String VIEWER = basic("viewer", "viewer");

	private static final String OPERATOR = basic("operator", "operator");

	private static String basic(String user, String password) {
		return "Basic " + java.util.Base64.getEncoder()
			.encodeToString((user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
	}

	private static HttpResponse<String> send(HttpClient http, HttpRequest.Builder request, String authorization)
			throws IOException, InterruptedException {
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private ConfigurableApplicationContext webInstance(TestRedis redis, String... more) {
		List<String> properties = new ArrayList<>(Arrays.asList(properties(redis)));
		properties.add("spring.datasource.url=jdbc:h2:mem:web-" + UUID.randomUUID());
		properties.add("sample.lottery.cron=-");
		properties.add("sample.checkout.max-concurrent=4");
		properties.add("server.port=0");
		properties.addAll(Arrays.asList(more));
		return new SpringApplicationBuilder(SampleApplication.class).web(WebApplicationType.SERVLET)
			.run(arguments(properties.toArray(String[]::new)));
	}

	/**
	 * The {@code redislock} endpoint is secured like the dashboard: anonymous clients
	 * read and change nothing, a viewer reads, only an operator acts — and only once the
	 * endpoint's access is opened.
	 */
	@Test
	void redislockEndpointLetsViewersReadAndOnlyOperatorsActOnceItsAccessIsOpened(TestRedis redis) throws Exception {
		for (boolean opened : new boolean[] { false, true }) {
			ExecutorService holder = Executors.newSingleThreadExecutor();
			try (ConfigurableApplicationContext app = webInstance(redis,
					opened ? "management.endpoint.redislock.access=unrestricted" : "sample.unused=")) {
				String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port")
						+ "/actuator/redislock";
				String name = "stuck-" + UUID.randomUUID();
				RedisLock lock = app.getBean(RedisLockTemplate.class).getLock(name);
				assertThat(holder.submit(() -> lock.tryLock(Duration.ZERO, null)).get()).isTrue();
				HttpClient http = HttpClient.newHttpClient();
				TaskQueue queue = app.getBean(TaskQueue.class);
				java.util.function.Supplier<HttpRequest.Builder> pause = () -> HttpRequest
					.newBuilder(URI.create(base + "/queues/fulfilment"))
					.header("Content-Type", "application/json")
					.POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"pause\"}"));
				// Anonymous: nothing.
				assertThat(send(http, HttpRequest.newBuilder(URI.create(base)).GET(), null).statusCode())
					.as("anonymous read")
					.isEqualTo(401);
				assertThat(
						send(http, HttpRequest.newBuilder(URI.create(base + "/" + name)).DELETE(), null).statusCode())
					.as("anonymous delete")
					.isEqualTo(401);
				assertThat(send(http, pause.get(), null).statusCode()).as("anonymous pause").isEqualTo(401);
				// A viewer reads, and cannot act.
				HttpResponse<String> read = send(http, HttpRequest.newBuilder(URI.create(base)).GET(), VIEWER);
				assertThat(read.statusCode()).isEqualTo(200);
				assertThat(read.body()).contains(name);
				assertThat(
						send(http, HttpRequest.newBuilder(URI.create(base + "/" + name)).DELETE(), VIEWER).statusCode())
					.as("viewer delete")
					.isEqualTo(403);
				assertThat(send(http, pause.get(), VIEWER).statusCode()).as("viewer pause").isEqualTo(403);
				assertThat(lock.isLocked()).isTrue();
				assertThat(queue.isPaused("fulfilment")).isFalse();
				// An operator acts once the endpoint is opened.
				HttpResponse<String> delete = send(http, HttpRequest.newBuilder(URI.create(base + "/" + name)).DELETE(),
						OPERATOR);
				HttpResponse<String> paused = send(http, pause.get(), OPERATOR);
				if (opened) {
					assertThat(delete.statusCode()).isEqualTo(200);
					assertThat(delete.body()).contains("\"deleted\":true");
					assertThat(lock.isLocked()).isFalse();
					assertThat(paused.statusCode()).isEqualTo(200);
					assertThat(queue.isPaused("fulfilment")).isTrue();
					queue.resume("fulfilment");
				}
				else {
					assertThat(delete.statusCode()).as("no delete operation while read-only").isNotEqualTo(200);
					assertThat(lock.isLocked()).isTrue();
					assertThat(paused.statusCode()).as("no write operation while read-only").isNotEqualTo(200);
					assertThat(queue.isPaused("fulfilment")).isFalse();
				}
				HttpResponse<String> noSuchQueue = send(http,
						HttpRequest.newBuilder(URI.create(base + "/queues/no-such-queue")).GET(), VIEWER);
				assertThat(noSuchQueue.statusCode()).isEqualTo(400);
				assertThat(noSuchQueue.body()).contains("\"error\"").contains("no-such-queue");
				assertThat(send(http,
						HttpRequest.newBuilder(URI.create(base + "/queues/fulfilment/dead-letter?id=none")).GET(),
						VIEWER)
					.statusCode()).as("no such dead letter").isEqualTo(404);
				if (opened) {
					HttpResponse<String> unknownAction = send(http,
							HttpRequest.newBuilder(URI.create(base + "/queues/fulfilment"))
								.header("Content-Type", "application/json")
								.POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"explode\"}")),
							OPERATOR);
					assertThat(unknownAction.statusCode()).isEqualTo(400);
					assertThat(unknownAction.body()).contains("explode").contains("pause");
				}
				HttpResponse<String> health = send(http,
						HttpRequest.newBuilder(URI.create(base.replace("redislock", "health/redislock"))).GET(),
						VIEWER);
				assertThat(health.statusCode()).isEqualTo(200);
				assertThat(health.body()).contains("\"status\":\"UP\"");
				assertThat(send(http, HttpRequest.newBuilder(URI.create(base + "/queues/fulfilment?dead=5000")).GET(),
						VIEWER)
					.statusCode()).isEqualTo(400);
				HttpResponse<String> details = send(http,
						HttpRequest.newBuilder(URI.create(base + "/queues/fulfilment?dead=5")).GET(), VIEWER);
				assertThat(details.statusCode()).isEqualTo(200);
				assertThat(details.body()).contains("\"deadLetters\"").contains("\"paused\":false");
				assertThat(
						send(http, HttpRequest.newBuilder(URI.create(base.replace("redislock", "health"))).GET(), null)
							.statusCode())
					.as("health, for load balancers")
					.isEqualTo(200);
			}
			finally {
				holder.shutdownNow();
			}
		}
	}

	/**
	 * Spring Security's CSRF protection covers the dashboard's actions however their path
	 * is spelled ({@code %72} is an {@code r}) and under a context path: a signed-in
	 * operator's action without the token is refused; with it (as the page sends it), it
	 * runs.
	 */
	/** The dashboard's pause action, as the page sends it. */
	private static final String PAUSE = "{\"action\":\"pause\",\"queue\":\"fulfilment\"}";

	@Test
	void dashboardActionsNeedTheCsrfTokenHoweverTheirPathIsSpelled(TestRedis redis) throws Exception {
		for (String contextPath : List.of("", "/shop")) {
			try (ConfigurableApplicationContext app = webInstance(redis,
					"server.servlet.context-path=" + contextPath)) {
				String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + contextPath;
				HttpClient http = HttpClient.newBuilder()
					.cookieHandler(new java.net.CookieManager())
					.followRedirects(HttpClient.Redirect.NEVER)
					.build();
				String login = http
					.send(HttpRequest.newBuilder(URI.create(base + "/login")).GET().build(),
							HttpResponse.BodyHandlers.ofString())
					.body();
				java.util.regex.Matcher token = java.util.regex.Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"")
					.matcher(login);
				assertThat(token.find()).as("the login form's token").isTrue();
				HttpResponse<String> signedIn = http.send(HttpRequest.newBuilder(URI.create(base + "/login"))
					.header("Content-Type", "application/x-www-form-urlencoded")
					.POST(HttpRequest.BodyPublishers
						.ofString("username=operator&password=operator&_csrf=" + token.group(1)))
					.build(), HttpResponse.BodyHandlers.ofString());
				assertThat(signedIn.statusCode()).isEqualTo(302);
				assertThat(signedIn.headers().firstValue("Location"))
					.hasValueSatisfying((location) -> assertThat(location).doesNotContain("error"));
				TaskQueue queue = app.getBean(TaskQueue.class);
				for (String spelling : List.of("/redislock", "/%72edislock", "/redislock/", "/REDISLOCK")) {
					HttpResponse<String> action = http
						.send(HttpRequest.newBuilder(URI.create(base + spelling + "/api/action"))
							.header("X-RedisLock-Dashboard", "1")
							.header("Content-Type", "application/json")
							.POST(HttpRequest.BodyPublishers.ofString(PAUSE))
							.build(), HttpResponse.BodyHandlers.ofString());
					// Refused by Spring Security's CSRF check (403) where the path
					// reaches
					// the dashboard; elsewhere by the firewall (400) or for want of a
					// route
					// (404).
					assertThat(action.statusCode()).as("%s%s without the CSRF token", contextPath, spelling)
						.isIn((spelling.equals("/redislock") || spelling.equals("/%72edislock")) ? List.of(403)
								: List.of(400, 403, 404));
					assertThat(queue.isPaused("fulfilment")).as("%s%s", contextPath, spelling).isFalse();
				}
				// As the page does it: the token from its state.
				String state = http
					.send(HttpRequest.newBuilder(URI.create(base + "/redislock/api/state")).GET().build(),
							HttpResponse.BodyHandlers.ofString())
					.body();
				java.util.regex.Matcher csrf = java.util.regex.Pattern.compile(
						"\"headerName\":\"([^\"]+)\",\"token\":\"([^\"]+)\"|\"token\":\"([^\"]+)\",\"headerName\":\"([^\"]+)\"")
					.matcher(state);
				assertThat(csrf.find()).as("the page's token in %s", state).isTrue();
				String header = (csrf.group(1) != null) ? csrf.group(1) : csrf.group(4);
				String value = (csrf.group(2) != null) ? csrf.group(2) : csrf.group(3);
				HttpResponse<String> action = http
					.send(HttpRequest.newBuilder(URI.create(base + "/redislock/api/action"))
						.header("X-RedisLock-Dashboard", "1")
						.header("Content-Type", "application/json")
						.header(header, value)
						.POST(HttpRequest.BodyPublishers.ofString(PAUSE))
						.build(), HttpResponse.BodyHandlers.ofString());
				assertThat(action.statusCode()).as("with the token: %s", action.body()).isEqualTo(200);
				assertThat(queue.isPaused("fulfilment")).isTrue();
				queue.resume("fulfilment");
			}
		}
	}

	@Test
	void saysAtStartWhichRedisItUses(TestRedis redis, CapturedOutput output) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.web(WebApplicationType.NONE)
			.listeners(new EmbeddedRedisFallback())
			.run(arguments(properties(redis)))) {
			// The test kit's properties give the URL too (an application's own rediss://
			// URL would otherwise switch TLS on).
			assertThat(output).contains("Redis for this sample: " + redis.host() + ":" + redis.port()
					+ " (spring.data.redis.url); no embedded Redis started");
		}
	}

	@Test
	void startsAnEmbeddedRedisWhenNoneAnswersAndStopsItAfterwards(CapturedOutput output) throws Exception {
		int port = freePort();
		SpringApplicationBuilder builder = new SpringApplicationBuilder(SampleApplication.class)
			.web(WebApplicationType.NONE)
			.listeners(new EmbeddedRedisFallback());
		try (ConfigurableApplicationContext context = builder
			.run(arguments("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"sample.lottery.cron=-", "spring.datasource.url=jdbc:h2:mem:embedded-" + UUID.randomUUID()))) {
			assertThat(answers(port)).isTrue();
			assertThat(output).contains("Redis for this sample: 127.0.0.1:" + port + ", EMBEDDED: nothing answered at");
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

	private static String[] properties(TestRedis redis) {
		return redis.springProperties()
			.entrySet()
			.stream()
			.map((property) -> property.getKey() + "=" + property.getValue())
			.toArray(String[]::new);
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
