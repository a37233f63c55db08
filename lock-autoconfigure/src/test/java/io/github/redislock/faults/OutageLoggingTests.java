package io.github.redislock.faults;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the starter logs while Redis is away: one WARN when the outage starts and one INFO
 * when it ends, not a line per poll interval and queue.
 */
@ExtendWith({ RedisExtension.class, OutputCaptureExtension.class })
class OutageLoggingTests {

	/** The starter's WARN lines (logged under their package). */
	private static final Pattern STARTER_WARN = Pattern.compile("(?m)^.* WARN .*io\\.github\\.redislock\\..*$");

	private final RedisServers servers;

	OutageLoggingTests(RedisServers servers) {
		this.servers = servers;
	}

	@Test
	void queueWorkersLogOneWarnWhenAnOutageStartsAndOneInfoWhenItEnds(CapturedOutput output) throws Exception {
		LocalRedisServer redis = this.servers.start();
		String queue = "outage-log-" + UUID.randomUUID();
		LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s", "redislock.queue.poll-interval=200ms", "test.queue=" + queue)
			.withBean(TwoQueues.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// Both queues' workers looked.
				await().atMost(Duration.ofSeconds(30))
					.until(() -> redis.template().hasKey("redislock:queue:{" + queue + "-a}:idle")
							&& redis.template().hasKey("redislock:queue:{" + queue + "-b}:idle"));
				int before = output.getOut().length();
				redis.kill();
				await().atMost(Duration.ofSeconds(30)).until(() -> warnings(output, before) >= 1);
				// The outage: two queues looking every 200 ms fail some 40 times.
				Thread.sleep(4000);
				assertThat(warnings(output, before)).as("WARN lines during the outage:%n%s", since(output, before))
					.isEqualTo(1);
				this.servers.restart(redis);
				await().atMost(Duration.ofSeconds(30)).until(() -> recoveries(output, before) >= 1);
				// Both queues work again (and say nothing more).
				await().atMost(Duration.ofSeconds(30))
					.until(() -> redis.template().hasKey("redislock:queue:{" + queue + "-a}:idle")
							&& redis.template().hasKey("redislock:queue:{" + queue + "-b}:idle"));
				assertThat(warnings(output, before)).as("WARN lines:%n%s", since(output, before)).isEqualTo(1);
				assertThat(recoveries(output, before)).as("INFO lines:%n%s", since(output, before)).isEqualTo(1);
			});
	}

	/**
	 * Threads keep trying to take a lock while Redis is away: the release channel's
	 * pub/sub connection, opened again for them every second, fails to open once per
	 * attempt.
	 */
	@Test
	void lockEngineLogsOneWarnWhenAnOutageStartsAndOneInfoWhenItEnds(CapturedOutput output) throws Exception {
		LocalRedisServer redis = this.servers.start();
		LockApplicationContextRunner.unconfigured()
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s")
			.run((context) -> {
				RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
				String name = "outage-log-" + UUID.randomUUID();
				ExecutorService holder = Executors.newSingleThreadExecutor();
				ExecutorService waiter = Executors.newSingleThreadExecutor();
				AtomicBoolean trying = new AtomicBoolean(true);
				try {
					CompletableFuture.runAsync(() -> locks.getLock(name).lock(), holder).get();
					// A waiter keeps trying, before, during and after the outage.
					CompletableFuture<Void> tries = CompletableFuture.runAsync(() -> {
						while (trying.get()) {
							try {
								locks.getLock(name).tryLock(Duration.ofMillis(300), null);
							}
							catch (RuntimeException ex) {
								// Redis away.
							}
						}
					}, waiter);
					await().atMost(Duration.ofSeconds(10))
						.until(() -> ((DefaultRedisLockTemplate) locks).releaseChannelState().equals("connected"));
					int before = output.getOut().length();
					redis.kill();
					await().atMost(Duration.ofSeconds(30)).until(() -> warnings(output, before) >= 1);
					// The outage: the waiter keeps trying for 5 s.
					Thread.sleep(5000);
					assertThat(warnings(output, before)).as("WARN lines during the outage:%n%s", since(output, before))
						.isEqualTo(1);
					this.servers.restart(redis);
					await().atMost(Duration.ofSeconds(60)).until(() -> recoveries(output, before) >= 1);
					await().atMost(Duration.ofSeconds(30))
						.until(() -> ((DefaultRedisLockTemplate) locks).releaseChannelState().equals("connected"));
					trying.set(false);
					tries.get();
					assertThat(warnings(output, before)).as("WARN lines:%n%s", since(output, before)).isEqualTo(1);
					assertThat(recoveries(output, before)).as("INFO lines:%n%s", since(output, before)).isEqualTo(1);
				}
				finally {
					trying.set(false);
					holder.shutdownNow();
					waiter.shutdownNow();
				}
			});
	}

	private static String since(CapturedOutput output, int start) {
		return output.getOut().substring(start);
	}

	/**
	 * The starter's WARN lines, but a lock's loss: the holder's lock is gone with the
	 * restarted server's data, and that loss is worth its own line.
	 */
	private static long warnings(CapturedOutput output, int start) {
		return STARTER_WARN.matcher(since(output, start))
			.results()
			.filter((line) -> !line.group().contains("LockLossReporter"))
			.count();
	}

	private static long recoveries(CapturedOutput output, int start) {
		return Pattern.compile("(?m)^.* INFO .*io\\.github\\.redislock\\..* answers again.*$")
			.matcher(since(output, start))
			.results()
			.count();
	}

	static class TwoQueues {

		@QueuedTask(queue = "${test.queue}-a")
		public void first(String value) {
		}

		@QueuedTask(queue = "${test.queue}-b")
		public void second(String value) {
		}

	}

}
