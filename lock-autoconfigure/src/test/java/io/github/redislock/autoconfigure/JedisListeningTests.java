package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On Jedis, whose subscriptions block their thread for as long as they last: a waiter is
 * woken by the release message (not by its last attempt at the end of its wait time),
 * also as the README's ACL user with its Jedis additions, and idle queue workers are
 * woken by another instance's enqueue and stop listening when the application closes. The
 * listener containers ran their subscription on the synchronous executor they deliver
 * messages on, so the subscription never returned: waiters waited out their wait time
 * (the hostile review of #32 proved it), and the queue's subscription, made on a thread
 * that then never returned, outlived the application.
 */
@ExtendWith(RedisExtension.class)
class JedisListeningTests {

	static final Map<String, Long> STARTED = new ConcurrentHashMap<>();

	private static JedisConnectionFactory jedis(LocalRedisServer redis, String user, String password) {
		return JedisHandOff.jedis(redis, user, password);
	}

	@Test
	void aWaiterOnJedisIsWokenByTheRelease(RedisServers servers) throws Exception {
		JedisConnectionFactory factory = jedis(servers.start(), null, null);
		try {
			assertThat(handOff(factory, "jedis-plain")).as("woken by the release message")
				.isLessThan(Duration.ofSeconds(2));
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aWaiterOnJedisAsTheReadmeUserIsWokenByTheReleaseAndRedisRefusesNothing(RedisServers servers) throws Exception {
		LocalRedisServer redis = servers.start();
		List<String> rule = AclUserApplicationTests.readmeRule();
		List<String> jedisAdditions = AclUserApplicationTests.readmeAdditions("+psubscribe");
		String adminPassword = "admin-" + UUID.randomUUID();
		RedisClient client = RedisClient.create();
		try (StatefulRedisConnection<String, String> asDefault = client.connect(redis.redisUri())) {
			AclUserApplicationTests.acl(asDefault.sync(), "SETUSER", "admin", "reset", "on", ">" + adminPassword, "~*",
					"&*", "+@all");
			AclUserApplicationTests.acl(asDefault.sync(), rule.subList(1, rule.size()).toArray(String[]::new));
			AclUserApplicationTests.acl(asDefault.sync(),
					jedisAdditions.subList(1, jedisAdditions.size()).toArray(String[]::new));
			AclUserApplicationTests.acl(asDefault.sync(), "SETUSER", "default", "off");
		}
		String password = rule.stream().filter((w) -> w.startsWith(">")).findFirst().orElseThrow().substring(1);
		StatefulRedisConnection<String, String> admin = client.connect(
				RedisURI.builder(redis.redisUri()).withAuthentication("admin", adminPassword.toCharArray()).build());
		admin.sync().aclLogReset();
		JedisConnectionFactory factory = jedis(redis, rule.get(2), password);
		try {
			Duration woken = handOff(factory, "jedis-acl");
			List<String> refused = admin.sync()
				.aclLog()
				.stream()
				.filter((entry) -> !"client|setinfo".equals(entry.get("object")))
				.map((entry) -> entry.get("reason") + " " + entry.get("object") + " " + entry.get("context"))
				.toList();
			assertThat(refused).as("commands or channels Redis refused the README user on Jedis").isEmpty();
			assertThat(woken).as("woken by the release message").isLessThan(Duration.ofSeconds(2));
		}
		finally {
			factory.destroy();
			admin.close();
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private static Duration handOff(RedisConnectionFactory factory, String name) throws Exception {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(factory);
		try {
			return JedisHandOff.handOff(template, name);
		}
		finally {
			template.destroy();
		}
	}

	@Test
	void idleQueueWorkersOnJedisAreWokenByAnotherInstancesEnqueueAndStopListeningWhenClosed(RedisServers servers) {
		LocalRedisServer redis = servers.start();
		LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withBean(RedisConnectionFactory.class, () -> jedis(redis, null, null))
			// Without the notification a task would wait for the next idle look.
			.withPropertyValues("redislock.queue.poll-interval=60s")
			.withBean(Mail.class)
			.run((workers) -> {
				assertThat(workers).hasNotFailed();
				// Idle: the workers have looked once and wait.
				Thread.sleep(1500);
				// Another instance (on Lettuce, no workers) enqueues: only its
				// notification
				// tells these workers.
				LockApplicationContextRunner.unconfigured()
					.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
					.withPropertyValues(redis.springProperties())
					.withPropertyValues("redislock.queue.workers=0")
					.withBean(Mail.class)
					.run((producer) -> {
						assertThat(producer).hasNotFailed();
						String id = UUID.randomUUID().toString();
						long sent = System.nanoTime();
						producer.getBean(Mail.class).send(id);
						await().atMost(Duration.ofSeconds(90)).until(() -> STARTED.containsKey(id));
						// Well under the poll interval, with room for a loaded machine.
						assertThat(Duration.ofNanos(STARTED.get(id) - sent)).as("started after the enqueue")
							.isLessThan(Duration.ofSeconds(15));
					});
			});
		// The subscription was made and is ended with the application: before, its start
		// never returned (the subscription ran on it), so nothing could close it.
		RedisClient client = RedisClient.create();
		try (StatefulRedisConnection<String, String> connection = client.connect(redis.redisUri())) {
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(connection.sync().pubsubChannels("*"))
					.as("channels still listened on after the application closed")
					.isEmpty());
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	static class Mail {

		@QueuedTask(queue = "jedis-mail")
		public void send(String id) {
			STARTED.put(id, System.nanoTime());
		}

	}

}
