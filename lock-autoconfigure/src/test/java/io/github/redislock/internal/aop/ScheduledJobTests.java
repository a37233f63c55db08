package io.github.redislock.internal.aop;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The recommended form for a {@code @Scheduled} job that must run on one instance per
 * tick, run by two application instances whose clocks differ.
 */
@Tag("slow-fault")
@ExtendWith(RedisExtension.class)
class ScheduledJobTests {

	/** Runs of the job on either instance: epoch ms by the real clock. */
	static final List<Long> RUNS = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner;

	private final RedisServer redis;

	ScheduledJobTests(RedisServer redis) {
		this.redis = redis;
		this.runner = LockApplicationContextRunner.on(redis).withUserConfiguration(Job.class);
	}

	@Test
	void jobRunsOncePerTickOnTwoInstancesWhoseClocksDiffer() {
		RUNS.clear();
		// The second instance's clock is 300 ms behind: it fires 300 ms after the first.
		this.runner.withBean(ThreadPoolTaskScheduler.class, () -> scheduler(Duration.ZERO))
			.run(both(this.runner.withBean(ThreadPoolTaskScheduler.class, () -> scheduler(Duration.ofMillis(-300))),
					() -> await().atMost(Duration.ofSeconds(30)).until(() -> RUNS.size() >= 12)));
		Map<Long, Integer> perTick = new TreeMap<>();
		for (long run : RUNS) {
			perTick.merge(run / 1000, 1, Integer::sum);
		}
		// The first and last second may be cut by the start and the end.
		List<Integer> whole = List.copyOf(perTick.values()).subList(1, perTick.size() - 1);
		assertThat(whole).as("runs per second: " + perTick).hasSizeGreaterThanOrEqualTo(10).containsOnly(1);
	}

	@Test
	void closingTheContextReleasesItsLocksAtOnceExceptWhatRemainsOfHoldAtLeast() throws Exception {
		String name = "closing-" + UUID.randomUUID();
		ExecutorService job = Executors.newSingleThreadExecutor();
		try {
			this.runner.run((context) -> {
				RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
				// Taken by a job thread that is still running when the context closes.
				assertThat(job.submit(() -> template.getLock(name).tryLock(Duration.ZERO, null)).get()).isTrue();
				assertThat(job
					.submit(() -> template.getLock(name + "-kept")
						.withHoldAtLeast(Duration.ofMinutes(1))
						.tryLock(Duration.ZERO, null))
					.get()).isTrue();
			});
		}
		finally {
			job.shutdownNow();
		}
		DefaultRedisLockTemplate next = new DefaultRedisLockTemplate(this.redis.connectionFactory());
		try {
			RedisLock released = next.getLock(name);
			assertThat(released.tryLock(Duration.ofSeconds(1), null)).as("released at close").isTrue();
			released.unlock();
			assertThat(next.getLock(name + "-kept").tryLock(Duration.ZERO, null)).as("holdAtLeast remains").isFalse();
		}
		finally {
			next.destroy();
		}
	}

	private static ContextConsumer<AssertableApplicationContext> both(ApplicationContextRunner second,
			Runnable whileBothRun) {
		return (first) -> {
			assertThat(first).hasNotFailed();
			second.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RedisLockTemplate.class))
					.isNotSameAs(first.getBean(RedisLockTemplate.class));
				whileBothRun.run();
			});
		};
	}

	private static ThreadPoolTaskScheduler scheduler(Duration clockOffset) {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setThreadNamePrefix("job-");
		scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), clockOffset));
		return scheduler;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Job {

		@Bean
		Tick tick() {
			return new Tick();
		}

	}

	static class Tick {

		@Scheduled(cron = "* * * * * *")
		@DistributedLock(name = "ScheduledJobTests.tick", waitTime = "0", onFailure = OnLockFailure.SKIP,
				holdAtLeast = "700ms")
		public void run() throws InterruptedException {
			RUNS.add(System.currentTimeMillis());
			Thread.sleep(10);
		}

	}

}
