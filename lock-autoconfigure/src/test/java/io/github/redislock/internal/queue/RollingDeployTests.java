package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.queue.DeadLetters;
import io.github.redislock.queue.TaskPayloadMigration;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rolling deploy through three versions of one {@code @QueuedTask} method, with two
 * application instances (each a Spring application of its own, with its own bean class)
 * sharing one queue, while both keep enqueueing:
 * <ol>
 * <li>version 1, {@code send(id, to)};
 * <li>version 2 adds a parameter at the end, {@code send(id, to, locale)}, and raises
 * {@code version};
 * <li>version 3 reshapes it, {@code send(id, Recipient)}, with a
 * {@link TaskPayloadMigration} for the payloads of versions 1 and 2.
 * </ol>
 * The instances are replaced one at a time (stop one, start it at the next version), so
 * each step has a period with both versions. Checked: every task ran, none went to the
 * dead letters, none ran on an instance of a version earlier than the one that wrote it
 * (an earlier instance hands such a task back), each run got the values enqueued (a
 * version-1 task run by version 2 has no locale; by version 3, the migration's), and an
 * instance of an earlier version did meet tasks of a later one (its log says it handed
 * them back, so the hand-back was exercised).
 */
@ExtendWith({ RedisExtension.class, OutputCaptureExtension.class })
class RollingDeployTests {

	/** id → the version that enqueued it. */
	static final Map<String, Integer> WRITTEN = new ConcurrentHashMap<>();

	/** id → its runs: "version to locale". */
	static final Map<String, List<String>> RUNS = new ConcurrentHashMap<>();

	private final RedisServer redis;

	private final String queue = "deploy-" + UUID.randomUUID();

	RollingDeployTests(RedisServer redis) {
		this.redis = redis;
	}

	/**
	 * The applications leave the test JVM's logging alone: Spring Boot's logging system,
	 * cleaned up when such an application closes, would leave later tests of this JVM
	 * that read the log with nothing to read.
	 */
	@BeforeAll
	static void noLoggingSystem() {
		System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
	}

	@AfterAll
	static void restoreLoggingSystem() {
		System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
	}

	@Test
	void aRollingDeployThroughTwoSignatureChangesRunsEveryTaskOnAVersionThatCanReadIt(CapturedOutput output)
			throws Exception {
		Instance a = start(1);
		Instance b = start(1);
		List<Instance> live = new CopyOnWriteArrayList<>(List.of(a, b));
		AtomicBoolean producing = new AtomicBoolean(true);
		AtomicInteger sent = new AtomicInteger();
		Thread producer = new Thread(() -> {
			Random random = new Random();
			while (producing.get()) {
				Instance instance = live.get(random.nextInt(live.size()));
				try {
					instance.send("t" + sent.incrementAndGet());
				}
				catch (RuntimeException ex) {
					// That instance was just stopped: the call is not counted.
					WRITTEN.remove("t" + sent.get());
				}
				sleep(3);
			}
		}, "rolling-deploy-producer");
		producer.start();
		try {
			sleep(500);
			for (int version = 2; version <= 3; version++) {
				b = replace(live, b, version);
				sleep(1000);
				a = replace(live, a, version);
				sleep(500);
			}
		}
		finally {
			producing.set(false);
			producer.join();
		}
		try {
			TaskQueue tasks = a.context.getBean(TaskQueue.class);
			DeadLetters dead = a.context.getBean(DeadLetters.class);
			await().atMost(Duration.ofSeconds(60))
				.until(() -> (WRITTEN.keySet().stream().allMatch(RUNS::containsKey) && tasks.size(this.queue) == 0)
						|| !dead.list(this.queue, 1).isEmpty());
			assertThat(dead.list(this.queue, 10)).as("dead letters").isEmpty();
			assertThat(WRITTEN).as("tasks of each version").containsValues(1, 2, 3).hasSizeGreaterThan(100);
			for (Map.Entry<String, Integer> written : WRITTEN.entrySet()) {
				List<String> runs = RUNS.get(written.getKey());
				assertThat(runs).as("runs of %s, written by version %d", written.getKey(), written.getValue())
					.hasSize(1);
				String run = runs.get(0);
				int ranOn = Integer.parseInt(run.substring(0, 1));
				assertThat(ranOn).as("the version that ran %s (%s)", written.getKey(), run)
					.isGreaterThanOrEqualTo(written.getValue());
				String locale = run.substring(run.indexOf(' ') + 1);
				String expected = switch (written.getValue()) {
					case 1 -> (ranOn == 3) ? "en" : "null";
					default -> "de";
				};
				assertThat(locale).as("locale of %s (%s)", written.getKey(), run).isEqualTo(expected);
			}
			assertThat(output.getOut())
				.as("an instance of version 1 met a task of version 2, one of version 2 a task of 3")
				.contains("was written for version 2 of its method, and this instance runs version 1")
				.contains("was written for version 3 of its method, and this instance runs version 2");
		}
		finally {
			a.context.close();
			b.context.close();
		}
	}

	private Instance replace(List<Instance> live, Instance old, int version) {
		live.remove(old);
		old.context.close();
		Instance next = start(version);
		live.add(next);
		return next;
	}

	private Instance start(int version) {
		Class<?> application = switch (version) {
			case 1 -> Version1.class;
			case 2 -> Version2.class;
			default -> Version3.class;
		};
		List<String> properties = new ArrayList<>(List.of("deploy.queue=" + this.queue, "redislock.queue.workers=2",
				"redislock.queue.poll-interval=200ms", "redislock.queue.backoff.initial=50ms",
				"redislock.queue.max-attempts=2", "spring.main.banner-mode=off"));
		properties.addAll(List.of(this.redis.springProperties()));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties(properties.toArray(String[]::new))
			.run();
		return new Instance(context, version);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static void ran(String id, int version, @Nullable Object locale) {
		RUNS.computeIfAbsent(id, (key) -> new CopyOnWriteArrayList<>()).add(version + " " + locale);
	}

	/**
	 * One application instance of one version; {@link #send} enqueues a new task as its
	 * version's method does.
	 */
	record Instance(ConfigurableApplicationContext context, int version) {

		void send(String id) {
			WRITTEN.put(id, this.version);
			Consumer<String> call = switch (this.version) {
				case 1 -> (task) -> this.context.getBean(Mailer1.class).send(task, "ada@example.com");
				case 2 -> (task) -> this.context.getBean(Mailer2.class).send(task, "ada@example.com", Locale.GERMAN);
				default -> (task) -> this.context.getBean(Mailer3.class)
					.send(task, new Recipient("ada@example.com", Locale.GERMAN));
			};
			call.accept(id);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class,
			RedisTaskQueueAutoConfiguration.class })
	static class Common {

	}

	@Configuration(proxyBeanMethods = false)
	@Import(Common.class)
	static class Version1 {

		@Bean
		Mailer1 mailer() {
			return new Mailer1();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(Common.class)
	static class Version2 {

		@Bean
		Mailer2 mailer() {
			return new Mailer2();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(Common.class)
	static class Version3 {

		@Bean
		Mailer3 mailer() {
			return new Mailer3();
		}

		/**
		 * Versions 1 and 2 wrote {@code [id, to]} and {@code [id, to, locale]}; version 3
		 * reads {@code [id, {"address": to, "locale": locale}]}.
		 */
		@Bean
		TaskPayloadMigration recipient() {
			JsonMapper json = JsonMapper.builder().build();
			return (queue, method, version, payload) -> {
				if (version >= 3) {
					return payload;
				}
				ArrayNode arguments = (ArrayNode) json.readTree(payload);
				ObjectNode recipient = json.createObjectNode();
				recipient.set("address", arguments.get(1));
				recipient.put("locale",
						(arguments.size() > 2 && !arguments.get(2).isNull()) ? arguments.get(2).asString() : "en");
				ArrayNode migrated = json.createArrayNode();
				migrated.add(arguments.get(0));
				migrated.add(recipient);
				return migrated.toString();
			};
		}

	}

	static class Mailer1 {

		@QueuedTask(queue = "${deploy.queue}", id = "#id")
		public void send(String id, String to) {
			ran(id, 1, null);
		}

	}

	static class Mailer2 {

		@QueuedTask(queue = "${deploy.queue}", id = "#id", version = 2)
		public void send(String id, String to, @Nullable Locale locale) {
			ran(id, 2, locale);
		}

	}

	static class Mailer3 {

		@QueuedTask(queue = "${deploy.queue}", id = "#id", version = 3)
		public void send(String id, Recipient to) {
			ran(id, 3, to.locale());
		}

	}

	record Recipient(String address, @Nullable Locale locale) {
	}

}
