package io.github.redislock.internal.queue;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.TcpProxy;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ConnectionEvents;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hostile review of 114ab2d/a82d15c (Lettuce subscription: one bound for open and
 * SUBSCRIBE, auto-reconnect-off loss reported). The pile-up test failed on 114ab2d (5
 * connects in flight at once: each given up at 10 s kept its thread and half-open socket
 * for the 60 s command timeout while the next started); one connect at a time now.
 */
@Tag("slow-fault")
@ExtendWith({ RedisExtension.class, OutputCaptureExtension.class })
class SubscriptionFixReviewTests {

	static final Map<String, Long> STARTED = new ConcurrentHashMap<>();

	private static final Pattern STARTER_WARN = Pattern.compile("(?m)^.* WARN .*$");

	private final RedisServers servers;

	private LocalRedisServer redis;

	private final String prefix = "fix-review-" + UUID.randomUUID();

	SubscriptionFixReviewTests(RedisServers servers) {
		this.servers = servers;
		this.redis = servers.start();
	}

	private ApplicationContextRunner runner(String... properties) {
		return LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("review.prefix=" + this.prefix, "redislock.queue.poll-interval=60s",
					"redislock.queue.visibility-timeout=5s")
			.withPropertyValues(properties)
			.withBean(ReviewQueue.class);
	}

	/** Listening threads blocked in Lettuce's connectPubSub right now. */
	private static long connectsInFlight() {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((e) -> e.getKey().getName().startsWith("redislock-queue-listen"))
			.filter((e) -> Arrays.stream(e.getValue()).anyMatch((f) -> f.getMethodName().equals("connectPubSub")))
			.count();
	}

	private static String warns(CapturedOutput output, int from) {
		Matcher matcher = STARTER_WARN.matcher(output.getOut().substring(from));
		StringBuilder lines = new StringBuilder();
		while (matcher.find()) {
			lines.append(matcher.group()).append('\n');
		}
		return lines.toString();
	}

	@SuppressWarnings("unchecked")
	private static int stateListeners(AbstractRedisClient client) throws Exception {
		Field events = AbstractRedisClient.class.getDeclaredField("connectionEvents");
		events.setAccessible(true);
		Field listeners = ConnectionEvents.class.getDeclaredField("listeners");
		listeners.setAccessible(true);
		return ((Set<Object>) listeners.get(events.get(client))).size();
	}

	/**
	 * One connect at a time: a connect given up at the 10 s bound keeps a listening
	 * thread and a connection until Lettuce gives its handshake up (the command timeout).
	 * On a path that stays half-open for new connections (commands still pass on the open
	 * connection, so every poll's claim asks for a subscription), no other connect starts
	 * meanwhile. On 114ab2d one started every ~10 s while the old ones still hung: up to
	 * commandTimeout / 10 s connects (threads and sockets) at once.
	 */
	@Test
	void givenUpConnectsDoNotPileUpWhileThePathStaysHalfOpen() {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			runner("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + proxy.port(),
					"redislock.queue.poll-interval=200ms", "spring.data.redis.timeout=60s")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					QueueWorkers workers = context.getBean(QueueWorkers.class);
					await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.pubSubClientIds().size() == 1);
					workers.probeEvery(1000);
					await().atMost(Duration.ofSeconds(10)).until(() -> workers.probesHeard() >= 2);
					proxy.silenceNewConnections();
					proxy.silenceSubscribers();
					long maxConnects = 0;
					long maxSilencedConnections = 0;
					long end = System.nanoTime() + Duration.ofSeconds(45).toNanos();
					while (System.nanoTime() < end) {
						maxConnects = Math.max(maxConnects, connectsInFlight());
						maxSilencedConnections = Math.max(maxSilencedConnections, proxy.openSilencedSockets() / 2);
						Thread.sleep(250);
					}
					assertThat(maxConnects).as("connectPubSub calls in flight at once (threads held)")
						.isLessThanOrEqualTo(1);
					// the given-up subscriber (1) + at most one connect in flight
					assertThat(maxSilencedConnections).as("half-open connections held at once").isLessThanOrEqualTo(2);
				});
		}
	}

	/**
	 * Auto-reconnect off: every loss and every stop/start leaves exactly one state
	 * listener of ours on the shared RedisClient (none leaked), and the last subscription
	 * hears.
	 */
	@Test
	void autoReconnectOffLeaksNoStateListeners(CapturedOutput output) {
		runner(this.redis.springProperties())
			.withBean(LettuceClientOptionsBuilderCustomizer.class, () -> (builder) -> builder.autoReconnect(false))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueWorkers workers = context.getBean(QueueWorkers.class);
				AbstractRedisClient client = context.getBean(LettuceConnectionFactory.class).getRequiredNativeClient();
				await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.pubSubClientIds().size() == 1);
				int base = stateListeners(client);
				int from = output.getOut().length();
				for (int i = 0; i < 10; i++) {
					List<String> before = this.redis.pubSubClientIds();
					this.redis.killPubSubClients();
					await().atMost(Duration.ofSeconds(10))
						.until(() -> this.redis.pubSubClientIds().size() == 1
								&& !this.redis.pubSubClientIds().equals(before));
				}
				for (int i = 0; i < 10; i++) {
					workers.stop();
					Thread.sleep(i % 3 * 5);
					workers.start();
					Thread.sleep(i % 4 * 5);
				}
				Thread.sleep(3000);
				assertThat(this.redis.pubSubClientIds()).hasSize(1);
				assertThat(stateListeners(client)).as("state listeners on the client").isEqualTo(base);
				assertThat(warns(output, from)).as("WARN lines").isEmpty();
				workers.probeEvery(500);
				long heard = workers.probesHeard();
				await().atMost(Duration.ofSeconds(10)).until(() -> workers.probesHeard() > heard + 2);
			});
	}

	/**
	 * A connect that completes just after the 10 s bound (replies 11 s late): it is
	 * closed when it opens; once the path heals there is one pub/sub connection, it
	 * hears, and Redis has no more client connections than before.
	 */
	@Test
	void aConnectThatOpensAfterTheBoundIsClosed() {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			runner("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + proxy.port(),
					"redislock.queue.poll-interval=2s", "spring.data.redis.timeout=60s")
				.withBean(LettuceClientOptionsBuilderCustomizer.class, () -> (builder) -> builder.autoReconnect(false))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					QueueWorkers workers = context.getBean(QueueWorkers.class);
					await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.pubSubClientIds().size() == 1);
					workers.probeEvery(1000);
					await().atMost(Duration.ofSeconds(10)).until(() -> workers.probesHeard() >= 2);
					long clientsBefore = clients();
					proxy.delayReplies(Duration.ofSeconds(11));
					this.redis.killPubSubClients();
					Thread.sleep(25_000);
					proxy.delayReplies(Duration.ZERO);
					long heard = workers.probesHeard();
					await().atMost(Duration.ofSeconds(60))
						.until(() -> workers.probesHeard() > heard + 2 && this.redis.pubSubClientIds().size() == 1);
					Thread.sleep(5000);
					assertThat(this.redis.pubSubClientIds()).hasSize(1);
					assertThat(clients()).as("client connections at Redis").isLessThanOrEqualTo(clientsBefore);
				});
		}
	}

	private long clients() {
		io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
		try (var connection = client.connect(this.redis.redisUri())) {
			return connection.sync().clientList().lines().count() - 1;
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	static class ReviewQueue {

		@QueuedTask(queue = "${review.prefix}-0")
		public void q(String id) {
			STARTED.putIfAbsent(id, System.nanoTime());
		}

	}

}
