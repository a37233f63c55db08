package io.github.redislock.test.support;

import java.time.Duration;

import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.support.KitTestApplication.Mailbox;
import io.github.redislock.test.support.KitTestApplication.Mailer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A Spring Boot test with {@link WithRedis}: the application talks to the test Redis
 * whatever {@code spring.data.redis.*} says, and {@link TaskQueueTestSupport} waits for
 * its worker threads.
 */
@WithRedis
@SpringBootTest(classes = KitTestApplication.class, properties = { "spring.data.redis.url=redis://127.0.0.1:1",
		"spring.data.redis.password=not-the-test-one", "redislock.queue.backoff.initial=50ms" })
class WithRedisApplicationTests {

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private Environment environment;

	@Autowired
	private Mailer mailer;

	@Autowired
	private Mailbox mailbox;

	@Autowired
	private TaskQueue queue;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void applicationUsesTheTestRedisWhateverSpringDataRedisSays(TestRedis testRedis) {
		this.redis.opsForValue().set("kit:written-by-app", "yes");
		assertThat(testRedis.command("EXISTS kit:written-by-app")).isEqualTo(":1");
		assertThat(this.environment.getProperty("spring.data.redis.host")).isEqualTo(testRedis.host());
		assertThat(this.environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(testRedis.port());
	}

	@Test
	void awaitDrainedReturnsOnceTheWorkersRanEveryTask() {
		for (int i = 0; i < 5; i++) {
			this.mailer.send("drained-" + i + "@example.com");
		}
		this.queues.awaitDrained("mail", Duration.ofSeconds(30));
		assertThat(this.mailbox.sent()).filteredOn((mail) -> mail.startsWith("drained-")).hasSize(5);
		this.queues.awaitAllDrained(Duration.ofSeconds(30));
	}

	@Test
	void drainThatTimesOutNamesTheQueueAndTheTasksLeft() {
		this.queue.pause("mail");
		try {
			this.mailer.send("stuck@example.com");
			this.queue.enqueue("mail", "later@example.com", new Object[] { "later@example.com" }, Duration.ofHours(1));
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> this.queues.awaitDrained("mail", Duration.ofMillis(200)))
				.withMessageStartingWith("Queue 'mail' was not drained within PT0.2S: 1 ready ['stuck@example.com'],"
						+ " 1 delayed ['later@example.com' due in ")
				.withMessageContaining("0 running")
				.withMessageContaining("the queue is paused");
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> this.queues.awaitAllDrained(Duration.ofMillis(100)))
				.withMessageStartingWith("Queues not drained within PT0.1S: 'mail': 1 ready ['stuck@example.com']");
		}
		finally {
			this.queue.cancel("mail", "stuck@example.com");
			this.queue.cancel("mail", "later@example.com");
			this.queue.resume("mail");
		}
	}

	@Test
	void deadLettersAreNamedWithTheirErrors() {
		this.mailer.bounce("nobody@example.com");
		this.queues.awaitDrained("bounces", Duration.ofSeconds(30));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> this.queues.assertNoDeadLetters("bounces"))
			.withMessageContaining("Queue 'bounces' has 1 dead letter(s): 'nobody@example.com' after 1 attempt(s)")
			.withMessageContaining("no such mailbox: nobody@example.com");
		this.queues.assertNoDeadLetters("mail");
	}

}
