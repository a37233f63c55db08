package io.github.redislock.test.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * When {@link WithRedis} empties the shared Redis: before each annotated class, unless it
 * says not to, and never before its {@code @Nested} classes. The classes are run here by
 * the JUnit launcher, so that this test controls what is in Redis before them.
 */
class WithRedisExtensionTests {

	private static final Map<String, String> seen = new ConcurrentHashMap<>();

	@Test
	void sharedRedisIsEmptiedBeforeAnAnnotatedClass() {
		TestRedis.shared().command("SET kit:left-over 1");
		run(Flushed.class);
		assertThat(seen).containsEntry("flushed", ":0");
	}

	@Test
	void sharedRedisKeepsItsKeysWhenTheClassSaysSoAndBeforeNestedClasses() {
		TestRedis.shared().command("SET kit:left-over 1");
		run(Kept.class);
		assertThat(seen).containsEntry("kept", ":1").containsEntry("nested", ":1");
	}

	private static void run(Class<?> testClass) {
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		LauncherFactory.create().execute(request().selectors(selectClass(testClass)).build(), listener);
		TestExecutionSummary summary = listener.getSummary();
		assertThat(summary.getFailures()).isEmpty();
		assertThat(summary.getTestsSucceededCount()).isPositive();
	}

	@WithRedis
	static class Flushed {

		@Test
		void probe(TestRedis redis) {
			seen.put("flushed", redis.command("EXISTS kit:left-over"));
		}

	}

	@WithRedis(flushBeforeClass = false)
	static class Kept {

		@Test
		void probe(TestRedis redis) {
			seen.put("kept", redis.command("EXISTS kit:left-over"));
		}

		@Nested
		class Inner {

			@Test
			void probe(TestRedis redis) {
				seen.put("nested", redis.command("EXISTS kit:left-over"));
			}

		}

	}

}
