package io.github.redislock.internal.dashboard;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redislock.internal.admin.DefaultRedisLockAdmin;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.queue.RedisTaskQueue;
import io.github.redislock.test.DeadLetterFixture;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The dashboard's routes without Spring Security, over a real Redis: read-only unless
 * {@code write-enabled}; actions only from the page itself; bad input is a 400 that
 * changes nothing. (With Spring Security, the sample's {@code DashboardBrowserTests}.)
 */
@ExtendWith(RedisExtension.class)
class DashboardRoutesTests {

	private final String queueName = "dashboard-" + UUID.randomUUID();

	private final RedisTaskQueue queue;

	private final DefaultRedisLockTemplate template;

	private final DefaultRedisLockAdmin admin;

	private final RedisServer redis;

	DashboardRoutesTests(RedisServer redis) {
		this.redis = redis;
		this.queue = new RedisTaskQueue(redis.connectionFactory(), new JsonMapper(), "redislock");
		this.template = new DefaultRedisLockTemplate(redis.connectionFactory());
		this.admin = new DefaultRedisLockAdmin(this.template::getHeldLocks, () -> List.of(this.queueName), this.queue,
				() -> this.template);
	}

	@AfterEach
	void close() throws Exception {
		this.template.destroy();
	}

	private MockMvc dashboard(boolean writeEnabled) {
		return dashboard(writeEnabled, List.of());
	}

	private MockMvc dashboard(boolean writeEnabled, List<String> allowedHosts) {
		return MockMvcBuilders
			.routerFunctions(new DashboardRoutes(this.admin, "/ops/locks", "ADMIN", writeEnabled, Duration.ofSeconds(2),
					false, allowedHosts)
				.routes())
			.build();
	}

	/**
	 * DNS rebinding: a site's name resolves to this server, so the browser's requests
	 * carry that name as their Host and Origin, and a same-origin check passes. Without
	 * Spring Security the dashboard answers only a Host that is an IP address, this
	 * machine's name, {@code localhost}, or one of
	 * {@code redislock.dashboard.allowed-hosts}.
	 */
	@Test
	void withoutSpringSecurityTheDashboardAnswersOnlyHostsItKnows() throws Exception {
		MockMvc mvc = dashboard(true);
		mvc.perform(post("/ops/locks/api/action").contentType("application/json")
			.content(action("pause", this.queueName, null))
			.header(DashboardRoutes.HEADER, "1")
			.header("Host", "rebound.example:8080")
			.header("Origin", "http://rebound.example:8080")
			.header("Sec-Fetch-Site", "same-origin"))
			.andExpect(status().isForbidden())
			.andExpect(jsonPath("$.error").value(containsString("redislock.dashboard.allowed-hosts")));
		mvc.perform(get("/ops/locks/api/state").header("Host", "rebound.example:8080"))
			.andExpect(status().isForbidden());
		mvc.perform(get("/ops/locks").header("Host", "rebound.example")).andExpect(status().isForbidden());
		assertThat(this.queue.isPaused(this.queueName)).isFalse();
		for (String host : List.of("localhost:8080", "127.0.0.1:8080", "10.1.2.3", "[::1]:8080")) {
			mvc.perform(get("/ops/locks/api/state").header("Host", host)).andExpect(status().isOk());
		}
		// A rebound page adds a forwarded host to its own requests: with or without
		// forwarded headers honoured, the Host it came with still counts.
		MockMvc forwarded = MockMvcBuilders
			.routerFunctions(new DashboardRoutes(this.admin, "/ops/locks", "ADMIN", true, Duration.ofSeconds(2), false,
					List.of())
				.routes())
			.addFilters(new org.springframework.web.filter.ForwardedHeaderFilter())
			.build();
		for (MockMvc mvc2 : List.of(mvc, forwarded)) {
			mvc2.perform(get("/ops/locks/api/state").header("Host", "rebound.example:8080")
				.header("X-Forwarded-Host", "localhost:8080")).andExpect(status().isForbidden());
			mvc2.perform(get("/ops/locks/api/state").header("Host", "rebound.example:8080")
				.header("Forwarded", "host=localhost;proto=http")).andExpect(status().isForbidden());
			mvc2.perform(get("/ops/locks/api/state").header("Host", "localhost:8080")
				.header("X-Forwarded-Host", "rebound.example")).andExpect(status().isForbidden());
		}
		mvc.perform(get("/ops/locks/api/state").header("Host", "localhost:8080")
			.header("X-Forwarded-Host", "127.0.0.1:8080")).andExpect(status().isOk());
		MockMvc allowed = dashboard(true, List.of("Ops.Example.com"));
		allowed.perform(get("/ops/locks/api/state").header("Host", "ops.example.com:443")).andExpect(status().isOk());
		allowed.perform(get("/ops/locks/api/state").header("Host", "rebound.example"))
			.andExpect(status().isForbidden());
	}

	@Test
	void servesThePageWithItsAssetsFromTheJarUnderItsPath() throws Exception {
		MockMvc mvc = dashboard(false);
		mvc.perform(get("/ops/locks"))
			.andExpect(status().isOk())
			.andExpect(content().string(containsString("src=\"/ops/locks/dashboard.js\"")))
			.andExpect(header().string("Content-Security-Policy", containsString("default-src 'none'")));
		mvc.perform(get("/ops/locks/dashboard.js")).andExpect(status().isOk());
		mvc.perform(get("/ops/locks/dashboard.css")).andExpect(status().isOk());
		mvc.perform(get("/ops/locks/api/state"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.canWrite").value(false))
			.andExpect(jsonPath("$.refreshMillis").value(2000))
			.andExpect(jsonPath("$.queues[0].name").value(this.queueName));
	}

	@Test
	void withoutSpringSecurityActionsAreDisabledUnlessWriteEnabled() throws Exception {
		dashboard(false)
			.perform(post("/ops/locks/api/action").contentType("application/json")
				.content(action("pause", this.queueName, null))
				.header(DashboardRoutes.HEADER, "1"))
			.andExpect(status().isForbidden())
			.andExpect(jsonPath("$.error").value(containsString("redislock.dashboard.write-enabled=true")));
		assertThat(this.queue.isPaused(this.queueName)).isFalse();
		MockMvc writable = dashboard(true);
		writable.perform(get("/ops/locks/api/state")).andExpect(jsonPath("$.canWrite").value(true));
		writable
			.perform(post("/ops/locks/api/action").contentType("application/json")
				.content(action("pause", this.queueName, null))
				.header(DashboardRoutes.HEADER, "1"))
			.andExpect(status().isOk());
		assertThat(this.queue.isPaused(this.queueName)).isTrue();
		this.queue.resume(this.queueName);
	}

	@Test
	void actionsFromAnywhereButThePageAreRefused() throws Exception {
		MockMvc mvc = dashboard(true);
		mvc.perform(post("/ops/locks/api/action").contentType("application/json")
			.content(action("pause", this.queueName, null))).andExpect(status().isForbidden());
		mvc.perform(post("/ops/locks/api/action").contentType("application/json")
			.content(action("pause", this.queueName, null))
			.header(DashboardRoutes.HEADER, "1")
			.header("Origin", "https://evil.example")).andExpect(status().isForbidden());
		mvc.perform(post("/ops/locks/api/action").contentType("application/json")
			.content(action("pause", this.queueName, null))
			.header(DashboardRoutes.HEADER, "1")
			.header("Sec-Fetch-Site", "cross-site")).andExpect(status().isForbidden());
		assertThat(this.queue.isPaused(this.queueName)).isFalse();
		mvc.perform(post("/ops/locks/api/action").contentType("application/json")
			.content(action("pause", this.queueName, null))
			.header(DashboardRoutes.HEADER, "1")
			.header("Origin", "http://localhost")
			.header("Sec-Fetch-Site", "same-origin")).andExpect(status().isOk());
		assertThat(this.queue.isPaused(this.queueName)).isTrue();
		this.queue.resume(this.queueName);
	}

	@Test
	void badInputIsABadRequestWithAMessageAndChangesNothing() throws Exception {
		this.queue.enqueue(this.queueName, "kept", "x", Duration.ofHours(1));
		MockMvc mvc = dashboard(true);
		mvc.perform(get("/ops/locks/api/queue").param("name", "nope"))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error").value(containsString("Unknown queue 'nope'")));
		mvc.perform(get("/ops/locks/api/queue").param("name", this.queueName).param("dead", "1001"))
			.andExpect(status().isBadRequest());
		mvc.perform(get("/ops/locks/api/queue").param("name", this.queueName).param("upcoming", "-1"))
			.andExpect(status().isBadRequest());
		mvc.perform(get("/ops/locks/api/queue").param("name", this.queueName).param("dead", "ten"))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error").value("'dead' must be a whole number, is 'ten'"));
		mvc.perform(get("/ops/locks/api/holder").param("name", ""))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error").value("Give a lock name"));
		mvc.perform(post("/ops/locks/api/action").contentType("application/json")
			.content(action("cancel", this.queueName, " "))
			.header(DashboardRoutes.HEADER, "1")).andExpect(status().isBadRequest());
		mvc.perform(post("/ops/locks/api/action").contentType("application/json")
			.content(action("drop", this.queueName, null))
			.header(DashboardRoutes.HEADER, "1")).andExpect(status().isBadRequest());
		assertThat(this.queue.find(this.queueName, "kept")).isPresent();
		mvc.perform(get("/ops/locks/api/queue").param("name", this.queueName))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.upcoming[0].id").value("kept"))
			.andExpect(jsonPath("$.summary.delayed").value(1));
	}

	/**
	 * 60 dead letters with a 1.9 MB payload and a 1.9 MB error each (left by an earlier
	 * release, or written under a raised max-payload-size): one request for a thousand of
	 * them answers a bounded number of bytes, and says that it stopped short.
	 */
	/**
	 * Ids full of control characters take six bytes each in the JSON answer: the budget
	 * counts them as written there, so the answer stays bounded.
	 */
	@Test
	void aQueueAnswerIsBoundedInBytesWhateverItsIdsHold() throws Exception {
		String controls = "\u0001".repeat(1000);
		for (int i = 0; i < 400; i++) {
			this.queue.enqueue(this.queueName, String.format("%03d", i) + controls, "x", Duration.ofHours(1));
		}
		byte[] body = dashboard(false)
			.perform(get("/ops/locks/api/queue").param("name", this.queueName).param("upcoming", "1000"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.complete").value(false))
			.andReturn()
			.getResponse()
			.getContentAsByteArray();
		assertThat(body.length).isLessThan(300 * 1024);
	}

	@Test
	void aQueueAnswerIsBoundedInBytesWhateverItsDeadLettersHold() throws Exception {
		int size = 1_900_000;
		DeadLetterFixture.store(this.redis, this.queueName, 60, size);
		try {
			byte[] body = dashboard(false)
				.perform(get("/ops/locks/api/queue").param("name", this.queueName)
					.param("dead", "1000")
					.param("upcoming", "1000"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.complete").value(false))
				.andExpect(jsonPath("$.deadLetters[0].id").value("dead-00"))
				.andExpect(jsonPath("$.deadLetters[0].payloadBytes").value(size + 2))
				.andExpect(jsonPath("$.deadLetters[0].errorBytes").value(size))
				.andReturn()
				.getResponse()
				.getContentAsByteArray();
			System.out
				.println("Dashboard answer to ?dead=1000 over 60 dead letters of 1.9 MB: " + body.length + " bytes");
			assertThat(body.length).isLessThan(300 * 1024);
		}
		finally {
			DeadLetterFixture.delete(this.redis, this.queueName);
		}
	}

	/**
	 * The page's view of a queue carries no payload (it shows none) and errors cut to a
	 * preview with their full sizes; one task is read whole on demand.
	 */
	@Test
	void theQueueViewCarriesNoPayloadAndOneTaskIsReadWholeOnDemand() throws Exception {
		this.queue.enqueue(this.queueName, "later", "ü".repeat(3000), Duration.ofHours(1));
		DeadLetterFixture.store(this.redis, this.queueName, 1, 10_000);
		try {
			MockMvc mvc = dashboard(false);
			mvc.perform(get("/ops/locks/api/queue").param("name", this.queueName))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.complete").value(true))
				.andExpect(jsonPath("$.upcoming[0].id").value("later"))
				.andExpect(jsonPath("$.upcoming[0].payloadBytes").value(6002))
				.andExpect(jsonPath("$.upcoming[0].payload").doesNotExist())
				.andExpect(jsonPath("$.deadLetters[0].id").value("dead-00"))
				.andExpect(jsonPath("$.deadLetters[0].payload").doesNotExist())
				.andExpect(jsonPath("$.deadLetters[0].payloadBytes").value(10_002))
				.andExpect(jsonPath("$.deadLetters[0].errorBytes").value(10_000))
				.andExpect(jsonPath("$.deadLetters[0].error").value("e".repeat(4096)));
			mvc.perform(get("/ops/locks/api/task").param("queue", this.queueName)
				.param("id", "dead-00")
				.param("state", "dead"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.payload").value("\"" + "p".repeat(10_000) + "\""))
				.andExpect(jsonPath("$.error").value("e".repeat(10_000)));
			mvc.perform(get("/ops/locks/api/task").param("queue", this.queueName)
				.param("id", "later")
				.param("state", "waiting"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.payload").value("\"" + "ü".repeat(3000) + "\""));
			mvc.perform(get("/ops/locks/api/task").param("queue", this.queueName)
				.param("id", "nobody")
				.param("state", "dead")).andExpect(status().isNotFound());
			mvc.perform(get("/ops/locks/api/task").param("queue", this.queueName)
				.param("id", "later")
				.param("state", "running"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.error").value(containsString("'dead' or 'waiting'")));
		}
		finally {
			DeadLetterFixture.delete(this.redis, this.queueName);
		}
	}

	/**
	 * Previews are cut in Redis at a character boundary: a payload of two-byte characters
	 * is never cut inside one.
	 */
	@Test
	void previewsAreCutAtACharacterBoundary() {
		this.queue.enqueue(this.queueName, "later", "ü".repeat(3000), Duration.ofHours(1));
		String preview = this.admin.queue(this.queueName, 1, 1).upcoming().get(0).payload();
		assertThat(preview).startsWith("\"ü").doesNotContain("\uFFFD");
		assertThat(preview.getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSize(4095);
	}

	/**
	 * What enqueue accepts as an id, the page acts on: ids travel in the action's JSON
	 * body, so ids of thousands of characters and ids with control characters are
	 * cancelled and requeued like any other.
	 */
	@Test
	void idsThatEnqueueAcceptsAreCancelledThroughThePage() throws Exception {
		String longId = "k".repeat(4096);
		String controlId = "line\nbreak\u0000";
		this.queue.enqueue(this.queueName, longId, "x", Duration.ofHours(1));
		this.queue.enqueue(this.queueName, controlId, "x", Duration.ofHours(1));
		MockMvc mvc = dashboard(true);
		for (String id : List.of(longId, controlId)) {
			mvc.perform(post("/ops/locks/api/action").contentType("application/json")
				.content(action("cancel", this.queueName, id))
				.header(DashboardRoutes.HEADER, "1"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.cancelled").value(true));
			assertThat(this.queue.find(this.queueName, id)).isEmpty();
		}
	}

	/**
	 * Under a servlet context path the page links its assets and sends its requests
	 * there, and its actions pass the same-origin checks.
	 */
	@Test
	void honoursTheServletContextPath() throws Exception {
		MockMvc mvc = dashboard(true);
		mvc.perform(get("/app/ops/locks").contextPath("/app"))
			.andExpect(status().isOk())
			.andExpect(content().string(containsString("src=\"/app/ops/locks/dashboard.js\"")))
			.andExpect(content().string(containsString("href=\"/app/ops/locks/dashboard.css\"")))
			.andExpect(content().string(containsString("data-base=\"/app/ops/locks\"")));
		mvc.perform(get("/app/ops/locks/").contextPath("/app"))
			.andExpect(status().isMovedPermanently())
			.andExpect(header().string("Location", "/app/ops/locks"));
		mvc.perform(post("/app/ops/locks/api/action").contextPath("/app")
			.contentType("application/json")
			.content(action("pause", this.queueName, null))
			.header(DashboardRoutes.HEADER, "1")
			.header("Origin", "http://localhost")
			.header("Sec-Fetch-Site", "same-origin")).andExpect(status().isOk());
		assertThat(this.queue.isPaused(this.queueName)).isTrue();
		this.queue.resume(this.queueName);
	}

	static String action(String action, String queue, String id) {
		java.util.Map<String, String> body = new java.util.LinkedHashMap<>();
		body.put("action", action);
		body.put("queue", queue);
		if (id != null) {
			body.put("id", id);
		}
		return new JsonMapper().writeValueAsString(body);
	}

}
