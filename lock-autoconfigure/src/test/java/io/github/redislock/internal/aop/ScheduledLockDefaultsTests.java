package io.github.redislock.internal.aop;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ShedLock user migrating attribute by attribute writes
 * {@code @DistributedLock(name, holdAtLeast)} on a {@code @Scheduled} method and nothing
 * else: an instance whose tick finds the lock taken must skip that tick at once (not wait
 * the default wait time and then run the same tick again, nor throw), and the skip is
 * counted as {@code skipped}, not as a time-out. A wait with {@code holdAtLeast} on a
 * {@code @Scheduled} method, which runs a tick twice by construction, stops the start.
 */
@ExtendWith(RedisExtension.class)
class ScheduledLockDefaultsTests {

	static final List<String> RUNS = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner;

	ScheduledLockDefaultsTests(RedisServer redis) {
		// A wait time that a wrong default would spend.
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisLockMetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redislock.wait-time=20s");
	}

	@Test
	void aScheduledJobWhoseLockIsTakenSkipsItsTickAtOnceAndCountsItAsSkipped() throws Exception {
		List<String> outcomes = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				if (context instanceof io.github.redislock.observation.LockObservationContext lock
						&& lock.getPhase() == io.github.redislock.observation.LockObservationContext.Phase.WAIT) {
					outcomes.add(lock.getOutcome());
				}
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		this.runner.withBean(ObservationRegistry.class, () -> observations)
			.withBean(ShedLockStyleJob.class)
			.run((context) -> {
				RUNS.clear();
				RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
				ExecutorService other = Executors.newSingleThreadExecutor();
				try {
					// Another instance runs the tick.
					assertThat(CompletableFuture
						.supplyAsync(() -> template.getLock("report").tryLock(Duration.ZERO, null), other)
						.get()).isTrue();
					long start = System.nanoTime();
					context.getBean(ShedLockStyleJob.class).report();
					assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the tick skipped at once")
						.isLessThan(Duration.ofSeconds(10));
					assertThat(RUNS).isEmpty();
					MeterRegistry registry = context.getBean(MeterRegistry.class);
					assertThat(registry.get("redislock.acquire")
						.tags("name", "report", "outcome", "skipped")
						.timer()
						.count()).isEqualTo(1);
					assertThat(Search.in(registry).name("redislock.acquire").tag("outcome", "timeout").timers())
						.isEmpty();
					assertThat(outcomes).containsExactly("skipped");
					// Free: the tick runs.
					CompletableFuture.runAsync(() -> template.getLock("report").unlock(), other).get();
					context.getBean(ShedLockStyleJob.class).report();
					assertThat(RUNS).containsExactly("report");
				}
				finally {
					other.shutdownNow();
				}
			});
	}

	/**
	 * An annotated method with {@code onFailure = SKIP} counts its skips as skipped too;
	 * one that throws counts a time-out.
	 */
	@Test
	void skipsAreCountedAsSkippedAndTimeOutsAsTimeOuts() throws Exception {
		this.runner.withBean(Guarded.class).run((context) -> {
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			String key = UUID.randomUUID().toString();
			ExecutorService other = Executors.newSingleThreadExecutor();
			try {
				assertThat(CompletableFuture
					.supplyAsync(() -> template.getLock("guarded:" + key).tryLock(Duration.ZERO, null), other)
					.get()).isTrue();
				Guarded guarded = context.getBean(Guarded.class);
				guarded.skipping(key);
				try {
					guarded.throwing(key);
				}
				catch (RuntimeException ex) {
					// Expected: not acquired.
				}
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(
						registry.get("redislock.acquire").tags("name", "guarded", "outcome", "skipped").timer().count())
					.isEqualTo(1);
				assertThat(
						registry.get("redislock.acquire").tags("name", "guarded", "outcome", "timeout").timer().count())
					.isEqualTo(1);
			}
			finally {
				other.shutdownNow();
			}
		});
	}

	@Test
	void aScheduledJobThatWaitsAndHoldsAtLeastStopsTheStartNamingTheMethod() {
		this.runner.withBean(WaitingJob.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("@DistributedLock on ScheduledLockDefaultsTests.WaitingJob.report()")
				.hasStackTraceContaining("waitTime '5s' and holdAtLeast '1m'")
				.hasStackTraceContaining("runs the same tick again"));
	}

	static class ShedLockStyleJob {

		@Scheduled(cron = "0 0 * * * *")
		@DistributedLock(name = "report", holdAtLeast = "1s")
		public void report() {
			RUNS.add("report");
		}

	}

	static class WaitingJob {

		@Scheduled(cron = "0 0 * * * *")
		@DistributedLock(name = "report", waitTime = "5s", holdAtLeast = "1m")
		public void report() {
		}

	}

	static class Guarded {

		@DistributedLock(name = "guarded", key = "#key", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public void skipping(String key) {
		}

		@DistributedLock(name = "guarded", key = "#key", waitTime = "0")
		public void throwing(String key) {
		}

	}

}
