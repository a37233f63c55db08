package io.github.redislock.internal.dashboard;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redislock.internal.admin.DefaultRedisLockAdmin;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.queue.RedisTaskQueue;
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

	DashboardRoutesTests(RedisServer redis) {
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
		return MockMvcBuilders
			.routerFunctions(
					new DashboardRoutes(this.admin, "/ops/locks", "ADMIN", writeEnabled, Duration.ofSeconds(2), false)
						.routes())
			.build();
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
			.perform(post("/ops/locks/api/action").param("action", "pause")
				.param("queue", this.queueName)
				.header(DashboardRoutes.HEADER, "1"))
			.andExpect(status().isForbidden())
			.andExpect(jsonPath("$.error").value(containsString("redislock.dashboard.write-enabled=true")));
		assertThat(this.queue.isPaused(this.queueName)).isFalse();
		MockMvc writable = dashboard(true);
		writable.perform(get("/ops/locks/api/state")).andExpect(jsonPath("$.canWrite").value(true));
		writable
			.perform(post("/ops/locks/api/action").param("action", "pause")
				.param("queue", this.queueName)
				.header(DashboardRoutes.HEADER, "1"))
			.andExpect(status().isOk());
		assertThat(this.queue.isPaused(this.queueName)).isTrue();
		this.queue.resume(this.queueName);
	}

	@Test
	void actionsFromAnywhereButThePageAreRefused() throws Exception {
		MockMvc mvc = dashboard(true);
		mvc.perform(post("/ops/locks/api/action").param("action", "pause").param("queue", this.queueName))
			.andExpect(status().isForbidden());
		mvc.perform(post("/ops/locks/api/action").param("action", "pause")
			.param("queue", this.queueName)
			.header(DashboardRoutes.HEADER, "1")
			.header("Origin", "https://evil.example")).andExpect(status().isForbidden());
		mvc.perform(post("/ops/locks/api/action").param("action", "pause")
			.param("queue", this.queueName)
			.header(DashboardRoutes.HEADER, "1")
			.header("Sec-Fetch-Site", "cross-site")).andExpect(status().isForbidden());
		assertThat(this.queue.isPaused(this.queueName)).isFalse();
		mvc.perform(post("/ops/locks/api/action").param("action", "pause")
			.param("queue", this.queueName)
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
		mvc.perform(post("/ops/locks/api/action").param("action", "cancel")
			.param("queue", this.queueName)
			.param("id", "k".repeat(1001))
			.header(DashboardRoutes.HEADER, "1")).andExpect(status().isBadRequest());
		mvc.perform(post("/ops/locks/api/action").param("action", "drop")
			.param("queue", this.queueName)
			.header(DashboardRoutes.HEADER, "1")).andExpect(status().isBadRequest());
		assertThat(this.queue.find(this.queueName, "kept")).isPresent();
		mvc.perform(get("/ops/locks/api/queue").param("name", this.queueName))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.upcoming[0].id").value("kept"))
			.andExpect(jsonPath("$.summary.delayed").value(1));
	}

}
