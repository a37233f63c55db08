package io.github.redislock.sample;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.queue.DeadLetters;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.support.TestRedis;
import io.github.redislock.test.support.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard of the sample application in a real browser: Debian's {@code chromium}
 * driven headless through its {@code chromedriver} (no browser is downloaded). Skipped
 * with a message when neither is installed and {@code CI} is unset; {@code .ci/run}
 * installs both. A failing test leaves a screenshot under {@code target/selenium/}.
 */
@WithRedis
class DashboardBrowserTests {

	private static final Path CHROMIUM = Path.of(System.getProperty("chromium.binary", "/usr/bin/chromium"));

	private static final Path CHROMEDRIVER = Path
		.of(System.getProperty("webdriver.chrome.driver", "/usr/bin/chromedriver"));

	private static final Duration PATIENCE = Duration.ofSeconds(20);

	private ConfigurableApplicationContext app;

	private WebDriver browser;

	private String base;

	@RegisterExtension
	final AfterTestExecutionCallback screenshotOnFailure = this::screenshotOnFailure;

	@BeforeEach
	void start(TestRedis redis) {
		boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
		if (!installed && System.getenv("CI") == null) {
			Assumptions.abort("Browser tests skipped: no " + CHROMIUM + " and " + CHROMEDRIVER
					+ " (apt-get install chromium chromium-driver; .ci/run installs them)");
		}
		assertThat(installed).as("CI is set but Chromium or ChromeDriver is missing: " + CHROMIUM + ", " + CHROMEDRIVER)
			.isTrue();
		// Each test starts from an empty Redis: queues, dead letters and pause states of
		// earlier tests are gone.
		redis.flushAll();
		List<String> properties = new java.util.ArrayList<>();
		redis.springProperties().forEach((name, value) -> properties.add(name + "=" + value));
		properties.add("spring.datasource.url=jdbc:h2:mem:dashboard-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		properties.add("sample.lottery.cron=-");
		properties.add("server.port=0");
		properties.add("redislock.dashboard.refresh-interval=1s");
		this.app = new SpringApplicationBuilder(SampleApplication.class).web(WebApplicationType.SERVLET)
			.run(properties.stream().map((property) -> "--" + property).toArray(String[]::new));
		this.base = "http://127.0.0.1:" + this.app.getEnvironment().getProperty("local.server.port");
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--window-size=1280,1000", "--lang=en");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		this.browser = new ChromeDriver(service, options);
	}

	@AfterEach
	void stop() {
		if (this.browser != null) {
			this.browser.quit();
		}
		if (this.app != null) {
			this.app.close();
		}
	}

	private void screenshotOnFailure(ExtensionContext context) throws IOException {
		if (context.getExecutionException().isPresent() && this.browser != null) {
			screenshot("target/selenium/" + context.getRequiredTestMethod().getName() + ".png");
		}
	}

	private void screenshot(String path) throws IOException {
		File shot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE);
		Path target = Path.of(path);
		Files.createDirectories(target.getParent());
		Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
	}

	private void signInAs(String user) {
		this.browser.get(this.base + "/redislock");
		// Spring Security's login page, then back to the dashboard.
		this.browser.findElement(By.name("username")).sendKeys(user);
		this.browser.findElement(By.name("password")).sendKeys(user);
		this.browser.findElement(By.cssSelector("button[type=submit]")).click();
		await().atMost(PATIENCE).until(() -> Integer.parseInt(body().getDomAttribute("data-refreshes")) >= 1);
	}

	private WebElement body() {
		return this.browser.findElement(By.tagName("body"));
	}

	private int refreshes() {
		return Integer.parseInt(body().getDomAttribute("data-refreshes"));
	}

	/**
	 * Wait until the page has loaded its data afresh twice (so it shows what Redis holds
	 * now).
	 */
	private void awaitFreshPage() {
		int seen = refreshes();
		await().atMost(PATIENCE).until(() -> refreshes() >= seen + 2);
	}

	private String cell(String queue, String column) {
		return text(By.cssSelector("tr[data-queue='" + queue + "'] td." + column));
	}

	/**
	 * Return the text of what {@code element} finds. The page redraws its tables every
	 * few seconds: an element found just before a redraw is gone by the time it is read,
	 * so it is found again.
	 */
	private String text(By element) {
		String[] text = new String[1];
		await().atMost(PATIENCE).ignoreException(StaleElementReferenceException.class).until(() -> {
			text[0] = this.browser.findElement(element).getText();
			return true;
		});
		return text[0];
	}

	/**
	 * Click what {@code element} finds, finding it again when the page redrew it between
	 * finding and clicking.
	 */
	private void click(By element) {
		await().atMost(PATIENCE).ignoreException(StaleElementReferenceException.class).until(() -> {
			this.browser.findElement(element).click();
			return true;
		});
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> fetch(String method, String path, boolean dashboardHeader) {
		String script = """
				const done = arguments[arguments.length - 1];
				const headers = {};
				if (arguments[2]) {
				  headers['X-RedisLock-Dashboard'] = '1';
				}
				fetch(arguments[1], { method: arguments[0], headers, credentials: 'same-origin' })
				  .then(async (response) => done({ status: response.status, body: await response.text() }))
				  .catch((error) => done({ status: -1, body: String(error) }));
				""";
		return (Map<String, Object>) ((JavascriptExecutor) this.browser).executeAsyncScript(script, method,
				this.base + path, dashboardHeader);
	}

	@Test
	void listsTheQueuesWithTheCountsRedisHolds() throws Exception {
		TaskQueue queue = this.app.getBean(TaskQueue.class);
		Receipts receipts = this.app.getBean(Receipts.class);
		receipts.setMailboxOpen(false);
		receipts.send("order-13", "ann");
		await().atMost(PATIENCE).until(() -> !this.app.getBean(DeadLetters.class).list("receipts", 10).isEmpty());
		queue.pause("receipts");
		for (int i = 0; i < 3; i++) {
			receipts.send("order-2" + i, "bob");
		}
		queue.enqueue("receipts", "later-1", List.of("later-1", "cy"), Duration.ofHours(1));
		queue.enqueue("receipts", "later-2", List.of("later-2", "dan"), Duration.ofHours(2));
		queue.enqueue("fulfilment", "order-30", List.of("order-30", "lamp", "eve"), Duration.ofMinutes(30));
		RedisLock report = this.app.getBean(RedisLockTemplate.class).getLock("report:2026-11");
		ExecutorService holder = Executors.newSingleThreadExecutor();
		try {
			assertThat(holder.submit(() -> report.tryLock(Duration.ZERO, null)).get()).isTrue();
			signInAs("operator");
			awaitFreshPage();
			RedisLockAdmin admin = this.app.getBean(RedisLockAdmin.class);
			for (RedisLockAdmin.QueueSummary summary : admin.queues()) {
				assertThat(cell(summary.name(), "ready")).isEqualTo(Long.toString(summary.ready()));
				assertThat(cell(summary.name(), "delayed")).isEqualTo(Long.toString(summary.delayed()));
				assertThat(cell(summary.name(), "inflight")).isEqualTo(Long.toString(summary.inflight()));
				assertThat(cell(summary.name(), "dead")).isEqualTo(Long.toString(summary.dead()));
				assertThat(cell(summary.name(), "state")).isEqualTo(summary.paused() ? "paused" : "running");
			}
			assertThat(cell("receipts", "ready")).isEqualTo("3");
			assertThat(cell("receipts", "delayed")).isEqualTo("2");
			assertThat(cell("receipts", "dead")).isEqualTo("1");
			assertThat(cell("receipts", "state")).isEqualTo("paused");
			assertThat(cell("fulfilment", "delayed")).isEqualTo("1");
			assertThat(text(By.cssSelector("#locks tr[data-lock='report:2026-11']"))).contains("exclusive");
			click(By.cssSelector("tr[data-queue='receipts'] a.queue"));
			await().atMost(PATIENCE)
				.until(() -> this.browser.findElements(By.cssSelector("#upcoming tr[data-id]")).size() == 2);
			this.browser.findElement(By.id("holder-name")).sendKeys("report:2026-11");
			this.browser.findElement(By.id("holder-lookup")).click();
			await().atMost(PATIENCE)
				.until(() -> this.browser.findElement(By.id("holder-result")).getText().contains("redis-lock-sample"));
			assertThat(this.browser.findElement(By.id("holder-result")).getText())
				.contains("pid " + ProcessHandle.current().pid());
			screenshot("target/dashboard.png");
			click(By.cssSelector("#upcoming tr[data-id='later-1'] button.cancel"));
			await().atMost(PATIENCE).until(() -> queue.find("receipts", "later-1").isEmpty());
			assertThat(queue.find("receipts", "later-2")).isPresent();
		}
		finally {
			holder.submit(report::unlock).get();
			holder.shutdownNow();
		}
	}

	@Test
	void requeueOnADeadLetterMakesTheTaskRun() {
		Receipts receipts = this.app.getBean(Receipts.class);
		receipts.setMailboxOpen(false);
		receipts.send("order-41", "dee");
		DeadLetters dead = this.app.getBean(DeadLetters.class);
		await().atMost(PATIENCE).until(() -> !dead.list("receipts", 10).isEmpty());
		receipts.setMailboxOpen(true);
		signInAs("operator");
		click(By.cssSelector("tr[data-queue='receipts'] a.queue"));
		await().atMost(PATIENCE)
			.until(() -> !this.browser.findElements(By.cssSelector("#dead tr[data-id='order-41'] button.requeue"))
				.isEmpty());
		assertThat(text(By.cssSelector("#dead tr[data-id='order-41']"))).contains("MailboxClosedException")
			.contains("1");
		click(By.cssSelector("#dead tr[data-id='order-41'] button.requeue"));
		await().atMost(PATIENCE).until(() -> receipts.sent().contains("order-41"));
		assertThat(dead.list("receipts", 10)).isEmpty();
		await().atMost(PATIENCE).until(() -> this.browser.findElements(By.cssSelector("#dead tr[data-id]")).isEmpty());
	}

	@Test
	void pauseViaThePageStopsWorkAndResumeRunsItAll() {
		Receipts receipts = this.app.getBean(Receipts.class);
		signInAs("operator");
		click(By.cssSelector("tr[data-queue='receipts'] button.pause"));
		TaskQueue queue = this.app.getBean(TaskQueue.class);
		await().atMost(PATIENCE).until(() -> queue.isPaused("receipts"));
		await().atMost(PATIENCE).until(() -> cell("receipts", "state").equals("paused"));
		for (int i = 0; i < 10; i++) {
			receipts.send("paused-" + i, "eve");
		}
		await().during(Duration.ofSeconds(3))
			.atMost(Duration.ofSeconds(5))
			.until(() -> receipts.sent().stream().noneMatch((id) -> id.startsWith("paused-")));
		await().atMost(PATIENCE)
			.until(() -> !this.browser.findElements(By.cssSelector("tr[data-queue='receipts'] button.resume"))
				.isEmpty());
		click(By.cssSelector("tr[data-queue='receipts'] button.resume"));
		await().atMost(PATIENCE)
			.until(() -> receipts.sent().stream().filter((id) -> id.startsWith("paused-")).count() == 10);
		assertThat(queue.isPaused("receipts")).isFalse();
	}

	@Test
	void withoutTheRoleWriteButtonsAreAbsentAndForgedPostsAreRefused() {
		Receipts receipts = this.app.getBean(Receipts.class);
		receipts.setMailboxOpen(false);
		receipts.send("order-77", "fay");
		await().atMost(PATIENCE).until(() -> !this.app.getBean(DeadLetters.class).list("receipts", 10).isEmpty());
		signInAs("viewer");
		click(By.cssSelector("tr[data-queue='receipts'] a.queue"));
		await().atMost(PATIENCE)
			.until(() -> !this.browser.findElements(By.cssSelector("#dead tr[data-id='order-77']")).isEmpty());
		assertThat(body().getDomAttribute("class")).contains("read-only");
		assertThat(
				this.browser.findElements(By.cssSelector("button.pause, button.resume, button.requeue, button.cancel")))
			.isEmpty();
		assertThat(this.browser.findElement(By.id("purge")).isDisplayed()).isFalse();
		// The page's own request, as a viewer: refused for the missing role.
		Map<String, Object> asViewer = fetch("POST", "/redislock/api/action", true);
		assertThat(asViewer.get("status")).isEqualTo(403L);
		// A forged request (what a cross-site form sends: no dashboard header, no CSRF
		// token).
		Map<String, Object> forged = fetch("POST", "/redislock/api/action", false);
		assertThat(forged.get("status")).isEqualTo(403L);
		TaskQueue queue = this.app.getBean(TaskQueue.class);
		assertThat(queue.isPaused("receipts")).isFalse();
		assertThat(this.app.getBean(DeadLetters.class).list("receipts", 10)).hasSize(1);
		// Bad input: 400 with a message, nothing changed.
		Map<String, Object> unknown = fetch("GET", "/redislock/api/queue?name=no-such-queue", true);
		assertThat(unknown.get("status")).isEqualTo(400L);
		assertThat((String) unknown.get("body")).contains("Unknown queue 'no-such-queue'");
		assertThat(fetch("GET", "/redislock/api/queue?name=receipts&dead=100000", true).get("status")).isEqualTo(400L);
		assertThat(fetch("GET", "/redislock/api/queue?name=receipts&upcoming=-1", true).get("status")).isEqualTo(400L);
		assertThat(fetch("GET", "/redislock/api/queue?name=receipts&dead=many", true).get("status")).isEqualTo(400L);
		assertThat(fetch("GET", "/redislock/api/holder?name=" + "x".repeat(1001), true).get("status")).isEqualTo(400L);
	}

	@Test
	void operatorsForgedPostIsRefusedAndMalformedActionsChangeNothing() {
		signInAs("operator");
		Map<String, Object> forged = fetch("POST", "/redislock/api/action", false);
		assertThat(forged.get("status")).isEqualTo(403L);
		assertThat(this.app.getBean(TaskQueue.class).isPaused("receipts")).isFalse();
		Map<String, Object> blankId = pageAction("requeue", "receipts", " ");
		assertThat(blankId.get("status")).isEqualTo(400L);
		assertThat((String) blankId.get("body")).contains("Give a task id");
		assertThat(pageAction("pause", "nope", null).get("status")).isEqualTo(400L);
		assertThat(pageAction("explode", "receipts", null).get("status")).isEqualTo(400L);
		assertThat(this.app.getBean(TaskQueue.class).isPaused("receipts")).isFalse();
	}

	/**
	 * A POST made like the page makes it: dashboard header and Spring Security's CSRF
	 * token.
	 */
	@SuppressWarnings("unchecked")
	private Map<String, Object> pageAction(String action, String queue, String id) {
		String script = """
				const done = arguments[arguments.length - 1];
				fetch(arguments[0] + '/redislock/api/state', { credentials: 'same-origin' })
				  .then((response) => response.json())
				  .then((state) => {
				    const headers = { 'X-RedisLock-Dashboard': '1', 'Content-Type': 'application/json' };
				    headers[state.csrf.headerName] = state.csrf.token;
				    const body = { action: arguments[1], queue: arguments[2] };
				    if (arguments[3] !== null) {
				      body.id = arguments[3];
				    }
				    return fetch(arguments[0] + '/redislock/api/action', { method: 'POST', headers,
				      credentials: 'same-origin', body: JSON.stringify(body) });
				  })
				  .then(async (response) => done({ status: response.status, body: await response.text() }))
				  .catch((error) => done({ status: -1, body: String(error) }));
				""";
		return (Map<String, Object>) ((JavascriptExecutor) this.browser).executeAsyncScript(script, this.base, action,
				queue, id);
	}

	/**
	 * A task due beyond the range of JavaScript's dates (year 300000, and the largest due
	 * time there is) leaves the list of upcoming tasks whole: the page shows every row,
	 * the far ones with their due time in words.
	 */
	@Test
	void tasksDueBeyondTheRangeOfJavaScriptDatesLeaveTheUpcomingListWhole() {
		TaskQueue queue = this.app.getBean(TaskQueue.class);
		queue.pause("receipts");
		long year300000 = java.time.LocalDate.of(300000, 1, 1)
			.atStartOfDay(java.time.ZoneOffset.UTC)
			.toInstant()
			.toEpochMilli();
		queue.enqueue("receipts", "soon", List.of("soon", "ann"), Duration.ofHours(1));
		queue.enqueue("receipts", "year-300000", List.of("far", "bob"),
				Duration.ofMillis(year300000 - System.currentTimeMillis()));
		queue.enqueue("receipts", "never", List.of("never", "cy"), Duration.ofMillis(Long.MAX_VALUE));
		signInAs("operator");
		click(By.cssSelector("tr[data-queue='receipts'] a.queue"));
		await().atMost(PATIENCE)
			.until(() -> this.browser.findElements(By.cssSelector("#upcoming tr[data-id]")).size() == 3);
		assertThat(text(By.cssSelector("#upcoming tr[data-id='soon'] td.due"))).endsWith("UTC");
		assertThat(text(By.cssSelector("#upcoming tr[data-id='year-300000'] td.due"))).contains("after year 275760");
		assertThat(text(By.cssSelector("#upcoming tr[data-id='never'] td.due"))).contains("after year 275760");
		assertThat(text(By.id("status"))).doesNotContain("Could not");
	}

	/**
	 * Ids that enqueue accepts — thousands of characters long, with control characters —
	 * are cancelled from the page; one dead letter is deleted from it, the others stay.
	 */
	@Test
	void longIdsAndIdsWithControlCharactersAreCancelledAndOneDeadLetterDeletedFromThePage() {
		TaskQueue queue = this.app.getBean(TaskQueue.class);
		Receipts receipts = this.app.getBean(Receipts.class);
		receipts.setMailboxOpen(false);
		receipts.send("order-51", "gus");
		receipts.send("order-52", "hal");
		DeadLetters dead = this.app.getBean(DeadLetters.class);
		await().atMost(PATIENCE).until(() -> dead.list("receipts", 10).size() == 2);
		String longId = "k".repeat(3000);
		String controlId = "line\nbreak\u0007";
		queue.enqueue("receipts", longId, List.of("x", "ivy"), Duration.ofHours(1));
		queue.enqueue("receipts", controlId, List.of("y", "jo"), Duration.ofHours(2));
		signInAs("operator");
		click(By.cssSelector("tr[data-queue='receipts'] a.queue"));
		await().atMost(PATIENCE)
			.until(() -> this.browser.findElements(By.cssSelector("#upcoming button.cancel")).size() == 2);
		click(By.cssSelector("#upcoming tr:nth-child(1) button.cancel"));
		await().atMost(PATIENCE).until(() -> queue.find("receipts", longId).isEmpty());
		await().atMost(PATIENCE)
			.until(() -> this.browser.findElements(By.cssSelector("#upcoming button.cancel")).size() == 1);
		click(By.cssSelector("#upcoming tr:nth-child(1) button.cancel"));
		await().atMost(PATIENCE).until(() -> queue.find("receipts", controlId).isEmpty());
		click(By.cssSelector("#dead tr[data-id='order-51'] button.show-payload"));
		await().atMost(PATIENCE).until(() -> text(By.id("task-view-payload")).contains("order-51"));
		assertThat(text(By.id("task-view-error"))).contains("MailboxClosedException");
		click(By.cssSelector("#dead tr[data-id='order-51'] button.delete"));
		await().atMost(PATIENCE).until(() -> dead.list("receipts", 10).size() == 1);
		assertThat(dead.list("receipts", 10)).extracting(io.github.redislock.queue.DeadTask::id)
			.containsExactly("order-52");
		await().atMost(PATIENCE)
			.until(() -> this.browser.findElements(By.cssSelector("#dead tr[data-id='order-51']")).isEmpty());
	}

}
