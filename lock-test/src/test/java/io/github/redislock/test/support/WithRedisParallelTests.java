package io.github.redislock.test.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * Test classes run in parallel (JUnit's parallel execution): a {@link WithRedis} class
 * that starts empties the shared Redis, so it must not start while another one runs.
 */
class WithRedisParallelTests {

	private static final Map<String, String> seen = new ConcurrentHashMap<>();

	private static final CountDownLatch written = new CountDownLatch(1);

	private static final CountDownLatch secondStarted = new CountDownLatch(1);

	@Test
	void classStartingMeanwhileDoesNotEmptyTheRedisOfAClassStillRunning() {
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		LauncherFactory.create()
			.execute(request().selectors(selectClass(First.class), selectClass(Second.class))
				.configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
				.configurationParameter("junit.jupiter.execution.parallel.mode.default", "same_thread")
				.configurationParameter("junit.jupiter.execution.parallel.mode.classes.default", "concurrent")
				.configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
				.configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "2")
				.build(), listener);
		TestExecutionSummary summary = listener.getSummary();
		assertThat(summary.getFailures()).isEmpty();
		assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
		assertThat(seen).containsEntry("first", ":1");
	}

	@WithRedis
	static class First {

		@Test
		void probe(TestRedis redis) throws InterruptedException {
			redis.command("SET kit:first 1");
			written.countDown();
			// Gives the other class the time to start, if it may.
			secondStarted.await(3, TimeUnit.SECONDS);
			seen.put("first", redis.command("EXISTS kit:first"));
		}

	}

	@ExtendWith(AfterFirstWrote.class)
	@WithRedis
	static class Second {

		@Test
		void probe() {
			secondStarted.countDown();
		}

	}

	/**
	 * Lets the second class start (and empty the Redis) only once the first wrote its
	 * key.
	 */
	static class AfterFirstWrote implements BeforeAllCallback {

		@Override
		public void beforeAll(ExtensionContext context) throws InterruptedException {
			written.await(10, TimeUnit.SECONDS);
		}

	}

}
