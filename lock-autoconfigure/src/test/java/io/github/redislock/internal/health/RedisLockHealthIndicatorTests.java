package io.github.redislock.internal.health;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockHealthContributorAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.TcpProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redislock} health indicator against real Redis servers: UP with the queues
 * as details (a paused queue included), DOWN with a message while Redis is killed or
 * stops answering, within the indicator's timeout, and UP again once Redis is back.
 */
@ExtendWith(RedisExtension.class)
class RedisLockHealthIndicatorTests {

	private static final String INDICATOR = "redislockHealthIndicator";

	private final RedisServer redis;

	private final RedisServers servers;

	private final String queue = "health-" + UUID.randomUUID();

	RedisLockHealthIndicatorTests(RedisServer redis, RedisServers servers) {
		this.redis = redis;
		this.servers = servers;
	}

	private ApplicationContextRunner runner() {
		return LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class,
					RedisLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("test.queue=" + this.queue, "redislock.health.timeout=500ms")
			.withBean(Mailer.class);
	}

	@Test
	void upWithEachQueuePausedOrNotAndItsDepthsAsDetails() {
		runner().withPropertyValues(this.redis.springProperties()).run((context) -> {
			context.getBean(Mailer.class).send("a@b.c");
			context.getBean(TaskQueue.class).pause(this.queue + "-paused");
			Health health = health(context);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsKeys("releaseChannel", "queues");
			Map<String, Map<String, Object>> queues = queues(health);
			assertThat(queues).containsOnlyKeys(this.queue, this.queue + "-paused");
			assertThat(queues.get(this.queue + "-paused")).containsEntry("paused", true);
			assertThat(queues.get(this.queue)).containsEntry("paused", false)
				.containsKeys("ready", "delayed", "inflight", "dead", "lagMillis");
			assertThat(health.getDetails().toString()).doesNotContain("password");
		});
	}

	@Test
	void locksAloneAreUpWithoutQueueDetails() {
		LockApplicationContextRunner.on(this.redis)
			.withConfiguration(AutoConfigurations.of(RedisLockHealthContributorAutoConfiguration.class))
			.run((context) -> {
				Health health = health(context);
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsKey("releaseChannel").doesNotContainKey("queues");
			});
	}

	@Test
	@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
	void downWhileRedisIsKilledAndUpOnceItIsBackWithTheReleaseChannel(
			org.springframework.boot.test.system.CapturedOutput output) {
		LocalRedisServer local = this.servers.start();
		runner()
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + local.port(),
					"spring.data.redis.timeout=10s")
			.run((context) -> {
				assertThat(health(context).getDetails()).containsEntry("releaseChannel", "idle");
				waitOnce(context.getBean(RedisLockTemplate.class));
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(health(context).getDetails()).containsEntry("releaseChannel",
							"connected"));
				local.kill();
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					Health down = timedHealth(context);
					assertThat(down.getStatus()).isEqualTo(Status.DOWN);
					assertThat(down.getDetails()).containsKey("error").containsEntry("releaseChannel", "disconnected");
				});
				// Asked again and again during the outage (a load balancer, a probe): the
				// failure is a detail of each answer, never a WARN and a stack trace
				// each.
				for (int i = 0; i < 5; i++) {
					assertThat(timedHealth(context).getStatus()).isEqualTo(Status.DOWN);
				}
				assertThat(output.getOut()).doesNotContain("health check failed");
				this.servers.restart(local);
				await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
					Health up = timedHealth(context);
					assertThat(up.getStatus()).isEqualTo(Status.UP);
					assertThat(up.getDetails()).containsEntry("releaseChannel", "connected").containsKey("queues");
				});
			});
	}

	@Test
	void downWithinItsTimeoutWhenRedisStopsAnsweringAndUpOnceItAnswers() {
		LocalRedisServer local = this.servers.start();
		try (TcpProxy proxy = TcpProxy.to(local)) {
			runner()
				.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + proxy.port(),
						"spring.data.redis.timeout=30s")
				.run((context) -> {
					// The first check opens connections and loads scripts: on a loaded
					// machine that can take longer than the check's 0.5 s timeout.
					await().atMost(Duration.ofSeconds(30))
						.untilAsserted(() -> assertThat(health(context).getStatus()).isEqualTo(Status.UP));
					proxy.blackHole();
					for (int i = 0; i < 3; i++) {
						Health down = timedHealth(context);
						assertThat(down.getStatus()).isEqualTo(Status.DOWN);
						assertThat(String.valueOf(down.getDetails().get("error"))).contains("PT0.5S");
					}
					proxy.heal();
					proxy.cutConnections();
					await().atMost(Duration.ofSeconds(60))
						.untilAsserted(() -> assertThat(timedHealth(context).getStatus()).isEqualTo(Status.UP));
				});
		}
	}

	/**
	 * The indicator's answer, which comes within its timeout (500 ms) and a margin for a
	 * busy machine, never after a command timeout.
	 */
	private static Health timedHealth(ApplicationContext context) {
		long start = System.nanoTime();
		Health health = health(context);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("answered within the timeout")
			.isLessThan(Duration.ofSeconds(3));
		return health;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Map<String, Object>> queues(Health health) {
		return (Map<String, Map<String, Object>>) health.getDetails().get("queues");
	}

	private static Health health(ApplicationContext context) {
		return context.getBean(INDICATOR, HealthIndicator.class).health(true);
	}

	/** One thread waits a moment for a lock another holds: the release channel opens. */
	private static void waitOnce(RedisLockTemplate locks) throws Exception {
		RedisLock lock = locks.getLock("health-" + UUID.randomUUID());
		ExecutorService holder = Executors.newSingleThreadExecutor();
		ExecutorService waiter = Executors.newSingleThreadExecutor();
		try {
			CompletableFuture.runAsync(lock::lock, holder).get();
			assertThat(CompletableFuture.supplyAsync(() -> lock.tryLock(Duration.ofMillis(300), null), waiter).get())
				.isFalse();
			CompletableFuture.runAsync(lock::unlock, holder).get();
		}
		finally {
			holder.shutdown();
			waiter.shutdown();
		}
	}

	static class Mailer {

		@QueuedTask(queue = "${test.queue}")
		public void send(String address) {
		}

		@QueuedTask(queue = "${test.queue}-paused")
		public void later(String address) {
		}

	}

}
