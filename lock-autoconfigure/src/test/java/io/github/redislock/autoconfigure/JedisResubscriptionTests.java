package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Jedis subscriptions after their connection was lost (a Redis restart, a proxy or
 * CLIENT KILL) and after a stop, from the hostile review of the Jedis subscription fix:
 * the queue's workers on Jedis never listened again (their container gave the lost
 * subscription up and still looked subscribed), and a template stopped within the
 * container's recovery pause was subscribed again for nobody.
 */
@ExtendWith(RedisExtension.class)
class JedisResubscriptionTests {

	static final Map<String, Long> STARTED = new ConcurrentHashMap<>();

	private static JedisConnectionFactory jedis(LocalRedisServer redis) {
		return JedisHandOff.jedis(redis, null, null);
	}

	private static LettuceConnectionFactory lettuce(LocalRedisServer redis) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Test
	void jedisQueueWorkersListenAgainAfterTheirSubscriptionConnectionWasLost(RedisServers servers) {
		queueWorkersListenAgain(servers, "jedis");
	}

	@Test
	void lettuceQueueWorkersListenAgainAfterTheirSubscriptionConnectionWasLost(RedisServers servers) {
		queueWorkersListenAgain(servers, "lettuce");
	}

	private void queueWorkersListenAgain(RedisServers servers, String client) {
		LocalRedisServer redis = servers.start();
		Supplier<RedisConnectionFactory> factory = client.equals("jedis") ? () -> jedis(redis) : () -> lettuce(redis);
		RedisClient lettuceClient = RedisClient.create();
		try (StatefulRedisConnection<String, String> admin = lettuceClient.connect(redis.redisUri())) {
			LockApplicationContextRunner.unconfigured()
				.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
				.withBean(RedisConnectionFactory.class, factory)
				.withPropertyValues("redislock.queue.poll-interval=60s")
				.withBean(Mail.class)
				.run((workers) -> {
					assertThat(workers).hasNotFailed();
					await().atMost(Duration.ofSeconds(10)).until(() -> !admin.sync().pubsubChannels("*").isEmpty());
					Thread.sleep(1500);
					// The subscription's connection is lost (a proxy, a network blip;
					// a Redis restart does the same).
					assertThat(redis.killPubSubClients()).isPositive();
					// Lettuce listens again at once; the container on Jedis does not.
					Thread.sleep(3000);
					LockApplicationContextRunner.unconfigured()
						.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
						.withPropertyValues(redis.springProperties())
						.withPropertyValues("redislock.queue.workers=0")
						.withBean(Mail.class)
						.run((producer) -> {
							String id = UUID.randomUUID().toString();
							long sent = System.nanoTime();
							producer.getBean(Mail.class).send(id);
							await().atMost(Duration.ofSeconds(90)).until(() -> STARTED.containsKey(id));
							assertThat(Duration.ofNanos(STARTED.get(id) - sent))
								.as(client + ": started after the enqueue (the idle look is 60 s away)")
								.isLessThan(Duration.ofSeconds(15));
						});
					assertThat(admin.sync().pubsubChannels("*")).as(client + ": channels listened on").isNotEmpty();
				});
		}
		finally {
			lettuceClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	/**
	 * The Jedis pattern subscription lost its connection; the container waits 5 s (its
	 * default recovery interval) and subscribes again. A stop of the template meanwhile
	 * (SmartLifecycle stop: "close the pub/sub subscription; a later wait opens it
	 * again") does not prevent that: the new subscription belongs to nobody, and the next
	 * wait opens a second one.
	 */
	@Test
	void aStoppedJedisTemplateListensOnNothingAndAfterARestartOnOneConnection(RedisServers servers) throws Exception {
		LocalRedisServer redis = servers.start();
		JedisConnectionFactory factory = jedis(redis);
		RedisClient lettuceClient = RedisClient.create();
		try (StatefulRedisConnection<String, String> admin = lettuceClient.connect(redis.redisUri())) {
			DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(factory);
			template.start();
			handOff(template, "leak");
			await().atMost(Duration.ofSeconds(10)).until(() -> patternSubscribers(admin) == 1);
			assertThat(redis.killPubSubClients()).isEqualTo(1);
			// Within the container's 5 s recovery interval: the application stops.
			template.stop();
			Thread.sleep(10_000);
			long afterStop = patternSubscribers(admin);
			template.start();
			handOff(template, "leak");
			Thread.sleep(2000);
			long afterRestart = patternSubscribers(admin);
			template.destroy();
			Thread.sleep(5000);
			long afterDestroy = patternSubscribers(admin);
			assertThat(new long[] { afterStop, afterRestart, afterDestroy })
				.as("pattern subscribers after the stop, after a new wait, after the destroy")
				.containsExactly(0, 1, 0);
		}
		finally {
			factory.destroy();
			lettuceClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private static long patternSubscribers(StatefulRedisConnection<String, String> admin) {
		return admin.sync().clientList().lines().filter((line) -> line.contains(" psub=1 ")).count();
	}

	private static void handOff(DefaultRedisLockTemplate template, String name) throws Exception {
		JedisHandOff.handOff(template, name);
	}

	static class Mail {

		@QueuedTask(queue = "jedis-resubscription-mail")
		public void send(String id) {
			STARTED.put(id, System.nanoTime());
		}

	}

}
