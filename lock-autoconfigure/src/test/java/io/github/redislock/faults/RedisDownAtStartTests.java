package io.github.redislock.faults;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis down when the application starts: the application starts, locking fails within
 * its wait time with a {@link LockAcquisitionException} that says Redis is unreachable,
 * and locking works once Redis is back, without a restart of the application.
 */
@ExtendWith(RedisExtension.class)
class RedisDownAtStartTests {

	private final RedisServers servers;

	RedisDownAtStartTests(RedisServers servers) {
		this.servers = servers;
	}

	@Test
	void applicationStartsWithoutRedisFailsFastAndRecoversWhenRedisIsBack() {
		LocalRedisServer redis = this.servers.start();
		redis.kill();
		LockApplicationContextRunner.unconfigured()
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port())
			.withBean(Reports.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
				Reports reports = context.getBean(Reports.class);
				long start = System.nanoTime();
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> locks.execute("report", Duration.ZERO, null, () -> "ran"))
					.withMessageContaining("'report'")
					.withMessageContaining("Redis is unreachable")
					.withCauseInstanceOf(RedisConnectionFailureException.class);
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(reports::daily)
					.withMessageContaining("'reports:daily'")
					.withMessageContaining("Redis is unreachable");
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("within the wait times")
					.isLessThan(10_000);
				this.servers.restart(redis);
				await().atMost(Duration.ofSeconds(30))
					.ignoreExceptions()
					.until(reports::daily, "reports:daily"::equals);
				assertThat(locks.execute("report", Duration.ZERO, null, () -> "ran")).isEqualTo("ran");
			});
	}

	/**
	 * Queue workers started while Redis is down subscribe to the queue's notifications
	 * once Redis is back: a task enqueued then runs at once, not at the workers' next
	 * look (a 5 s poll interval here).
	 */
	@Test
	void queueWorkersStartedWithoutRedisPickUpTasksAtOnceWhenRedisIsBack() {
		LocalRedisServer redis = this.servers.start();
		redis.kill();
		String queue = "down-at-start-" + java.util.UUID.randomUUID();
		LockApplicationContextRunner.unconfigured()
			.withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations
				.of(io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s", "redislock.queue.poll-interval=5s", "test.queue=" + queue)
			.withBean(Mailer.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Mailer mailer = context.getBean(Mailer.class);
				this.servers.restart(redis);
				// The workers looked, found nothing, and sleep a poll interval.
				await().atMost(Duration.ofSeconds(30))
					.ignoreExceptions()
					.until(() -> redis.template().hasKey("redislock:queue:{" + queue + "}:idle"));
				long enqueued = System.nanoTime();
				mailer.send("first");
				await().atMost(Duration.ofSeconds(30)).until(() -> Mailer.SENT.contains(queue + ":first"));
				assertThat(Duration.ofNanos(System.nanoTime() - enqueued)).as("picked up after the enqueue")
					.isLessThan(Duration.ofSeconds(2));
			});
	}

	/**
	 * Redis goes away while the workers run, and comes back: the notifications are
	 * subscribed again, so a task enqueued then runs at once, as before the outage, not
	 * at the workers' next look (a 5 s poll interval here). Twice: the connections cut (a
	 * load balancer), then the server restarted after an outage.
	 */
	@Test
	void queueWorkersPickUpTasksAtOnceAfterAnOutageWhileTheyRan() {
		LocalRedisServer redis = this.servers.start();
		String queue = "outage-" + java.util.UUID.randomUUID();
		try (io.github.redislock.test.TcpProxy proxy = io.github.redislock.test.TcpProxy.to(redis)) {
			LockApplicationContextRunner.unconfigured()
				.withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations
					.of(io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + proxy.port(),
						"spring.data.redis.timeout=1s", "redislock.queue.poll-interval=5s", "test.queue=" + queue)
				.withBean(Mailer.class)
				.run((context) -> {
					Mailer mailer = context.getBean(Mailer.class);
					assertPickedUpAtOnce(redis, queue, mailer, "steady");
					proxy.cutConnections();
					assertPickedUpAtOnce(redis, queue, mailer, "after-cut");
					redis.kill();
					// The workers' looks fail for a while.
					Thread.sleep(3000);
					this.servers.restart(redis);
					assertPickedUpAtOnce(redis, queue, mailer, "after-restart");
				});
		}
	}

	private static void assertPickedUpAtOnce(LocalRedisServer redis, String queue, Mailer mailer, String what) {
		// The workers looked, found nothing, and sleep a poll interval.
		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> redis.template().hasKey("redislock:queue:{" + queue + "}:idle"));
		long enqueued = System.nanoTime();
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
			mailer.send(what);
			return true;
		});
		await().atMost(Duration.ofSeconds(30)).until(() -> Mailer.SENT.contains(queue + ":" + what));
		assertThat(Duration.ofNanos(System.nanoTime() - enqueued)).as("%s: picked up after the enqueue", what)
			.isLessThan(Duration.ofSeconds(2));
	}

	/**
	 * Redis is back for the shared connection, but refuses new connections (maxclients
	 * reached, a proxy): the subscription to the notifications keeps failing, and a task
	 * claimed meanwhile still runs (found in review: the subscription was made on the
	 * poller's thread between the claim and the hand-off, and retried there forever).
	 */
	@Test
	void aClaimedTaskRunsWhileNewConnectionsAreRefused() {
		LocalRedisServer redis = this.servers.start();
		String queue = "refused-" + java.util.UUID.randomUUID();
		try (io.github.redislock.test.TcpProxy proxy = io.github.redislock.test.TcpProxy.to(redis)) {
			proxy.refuseConnections();
			LockApplicationContextRunner.unconfigured()
				.withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations
					.of(io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + proxy.port(),
						"spring.data.redis.timeout=1s", "redislock.queue.poll-interval=5s",
						"redislock.queue.visibility-timeout=6s", "test.queue=" + queue)
				.withBean(Mailer.class)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Mailer mailer = context.getBean(Mailer.class);
					proxy.heal();
					await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
						mailer.send("first");
						return true;
					});
					proxy.refuseConnections();
					try {
						await().atMost(Duration.ofSeconds(20)).until(() -> Mailer.SENT.contains(queue + ":first"));
					}
					finally {
						proxy.heal();
					}
				});
		}
	}

	static class Mailer {

		static final java.util.Set<String> SENT = java.util.concurrent.ConcurrentHashMap.newKeySet();

		@io.github.redislock.annotation.QueuedTask(queue = "${test.queue}")
		public void send(String what) {
			SENT.add(io.github.redislock.queue.TaskContext.queue() + ":" + what);
		}

	}

	static class Reports {

		@DistributedLock(name = "reports", key = "'daily'", waitTime = "1s")
		public String daily() {
			return LockContext.lockName();
		}

	}

}
