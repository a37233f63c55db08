package io.github.redislock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The two-instance demo: starts two instances of the application on two HTTP ports
 * against one Redis and one database, fires a burst of concurrent buyers at both and runs
 * the lottery on both, then prints what happened.
 */
public final class Demo {

	static final int ITEMS = 500;

	static final int BUYS = 2000;

	private Demo() {
	}

	public static void main(String[] args) throws Exception {
		Result result = run(args);
		System.out.println();
		System.out.println("items on sale:           " + ITEMS);
		System.out.println("buy requests:            " + BUYS + " (over two instances)");
		System.out.println("items sold:              " + result.sold());
		System.out.println("orders recorded:         " + result.fulfilled());
		System.out.println("oversold = " + result.oversold());
		System.out.println("duplicates = " + result.duplicates());
		System.out.println(
				"lottery winners:         " + result.winners() + ", drawn by " + result.draws() + " of 2 instances");
		System.exit((result.oversold() == 0 && result.duplicates() == 0 && result.draws() == 1) ? 0 : 1);
	}

	/**
	 * Run the demo; {@code args} are passed to both instances (e.g. Redis settings).
	 */
	static Result run(String... args) throws Exception {
		List<String> arguments = new ArrayList<>(Arrays.asList(args));
		arguments.removeIf((argument) -> argument.equals("--demo"));
		arguments.add("--server.port=0");
		arguments.add("--sample.lottery.cron=-");
		arguments.add("--spring.datasource.url=jdbc:h2:mem:demo;DB_CLOSE_DELAY=-1");
		String[] shared = arguments.toArray(String[]::new);
		try (ConfigurableApplicationContext first = start(shared);
				ConfigurableApplicationContext second = start(shared)) {
			List<String> bases = List.of(base(first), base(second));
			HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
			String item = "demo-" + System.currentTimeMillis();
			post(http, bases.get(0) + "/sales/" + item + "?quantity=" + ITEMS);
			ExecutorService buyers = Executors.newFixedThreadPool(32);
			int sold = 0;
			try {
				List<Future<Integer>> responses = new ArrayList<>();
				for (int i = 0; i < BUYS; i++) {
					String url = bases.get(i % 2) + "/sales/" + item + "/buy?buyer=buyer-" + i;
					responses.add(buyers.submit(() -> post(http, url).statusCode()));
				}
				for (Future<Integer> response : responses) {
					sold += (response.get(2, TimeUnit.MINUTES) == 200) ? 1 : 0;
				}
			}
			finally {
				buyers.shutdownNow();
			}
			Fulfilment fulfilment = first.getBean(Fulfilment.class);
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
			while (fulfilment.fulfilled(item) < sold && System.nanoTime() < deadline) {
				Thread.sleep(100);
			}
			ExecutorService instances = Executors.newFixedThreadPool(2);
			int draws = 0;
			try {
				List<Future<String>> drawn = new ArrayList<>();
				for (String base : bases) {
					drawn.add(instances.submit(() -> post(http, base + "/lottery/draw").body()));
				}
				for (Future<String> body : drawn) {
					draws += body.get(1, TimeUnit.MINUTES).contains("\"drawnNow\":[]") ? 0 : 1;
				}
			}
			finally {
				instances.shutdownNow();
			}
			int winners = first.getBean(Lottery.class).winners(java.time.LocalDate.now()).size();
			return new Result(sold, fulfilment.fulfilled(item), Math.max(0, sold - ITEMS), fulfilment.duplicates(item),
					winners, draws);
		}
	}

	private static ConfigurableApplicationContext start(String[] args) {
		return new SpringApplicationBuilder(SampleApplication.class).listeners(new EmbeddedRedisFallback()).run(args);
	}

	private static String base(ConfigurableApplicationContext context) {
		return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
	}

	private static HttpResponse<String> post(HttpClient http, String url) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * What the demo saw.
	 */
	record Result(int sold, long fulfilled, int oversold, long duplicates, int winners, int draws) {
	}

}
