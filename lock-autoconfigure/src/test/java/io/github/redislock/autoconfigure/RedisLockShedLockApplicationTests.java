package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.core.LockContext;
import io.github.redislock.shedlock.RedisLockProvider;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's {@code @SchedulerLock} jobs, unchanged, on the auto-configured
 * {@link RedisLockProvider} of two application instances on a real Redis: one run per
 * {@code lockAtLeastFor}, {@code LockAssert} satisfied, and the fencing token in
 * {@link LockContext}.
 */
@ExtendWith(RedisExtension.class)
class RedisLockShedLockApplicationTests {

	/** Runs of the job on either instance. */
	static final List<Run> RUNS = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner;

	RedisLockShedLockApplicationTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisLockShedLockAutoConfiguration.class))
			.withUserConfiguration(Jobs.class);
	}

	@Test
	void schedulerLockJobsOfTwoInstancesRunOncePerLockAtLeastForWithTheirFencingToken() {
		RUNS.clear();
		this.runner.run((first) -> {
			assertThat(first).hasNotFailed();
			assertThat(first.getBean(LockProvider.class)).isInstanceOf(RedisLockProvider.class);
			this.runner.run((second) -> {
				assertThat(second).hasNotFailed();
				await().atMost(Duration.ofSeconds(30)).until(() -> RUNS.size() >= 5);
			});
		});
		List<Run> runs = List.copyOf(RUNS);
		assertThat(runs).allSatisfy((run) -> {
			assertThat(run.lockAsserted()).as("LockAssert.assertLocked()").isTrue();
			assertThat(run.lockName()).isEqualTo("nightly-export");
			assertThat(run.held()).isTrue();
		});
		for (int i = 1; i < runs.size(); i++) {
			assertThat(runs.get(i).token()).as("fencing tokens increase").isGreaterThan(runs.get(i - 1).token());
			// Ticks every 50 ms on both instances; lockAtLeastFor 500ms, timed by Redis.
			assertThat(Duration.ofNanos(runs.get(i).startedNanos() - runs.get(i - 1).startedNanos()))
				.as("runs " + (i - 1) + " and " + i + " apart")
				.isGreaterThan(Duration.ofMillis(400));
		}
	}

	record Run(long startedNanos, boolean lockAsserted, String lockName, long token, boolean held) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "30s")
	static class Jobs {

		@Bean
		Export export() {
			return new Export();
		}

	}

	static class Export {

		@Scheduled(fixedRate = 50)
		@SchedulerLock(name = "nightly-export", lockAtLeastFor = "500ms")
		public void run() {
			boolean asserted;
			try {
				LockAssert.assertLocked();
				asserted = true;
			}
			catch (IllegalStateException ex) {
				asserted = false;
			}
			RUNS.add(new Run(System.nanoTime(), asserted, LockContext.lockName(), LockContext.fencingToken(),
					LockContext.isHeld()));
		}

	}

}
