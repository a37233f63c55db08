package io.github.redislock.actuate.endpoint;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.admin.TaskPreview;
import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAdminAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockEndpointAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.queue.DeadLetters;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.DeadLetterFixture;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redislock} actuator endpoint against a real Redis.
 */
@ExtendWith(RedisExtension.class)
class RedisLockEndpointTests {

	private final ApplicationContextRunner runner;

	private final String queue = "endpoint-" + UUID.randomUUID();

	private final RedisServer redis;

	RedisLockEndpointTests(RedisServer redis) {
		this.redis = redis;
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class,
					RedisLockAdminAutoConfiguration.class, RedisLockEndpointAutoConfiguration.class))
			.withPropertyValues("test.queue=" + this.queue, "redislock.queue.workers=0")
			.withBean(Mailer.class);
	}

	@Test
	void notAvailableUnlessExposed() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(RedisLockEndpoint.class));
	}

	@Test
	void showsHeldLocksAndQueueDepths() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislock").run((context) -> {
			RedisLockEndpoint endpoint = context.getBean(RedisLockEndpoint.class);
			RedisLock lock = context.getBean(RedisLockTemplate.class).getLock("report:7");
			lock.lock();
			context.getBean(Mailer.class).send("a@b.c");
			RedisLockEndpoint.RedisLockDescriptor descriptor = endpoint.describe();
			assertThat(descriptor.locks()).singleElement().satisfies((held) -> {
				assertThat(held.name()).isEqualTo("report:7");
				assertThat(held.type()).isEqualTo("exclusive");
				assertThat(held.fencingToken()).isEqualTo(lock.fencingToken());
				assertThat(held.leaseLeft()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
			});
			assertThat(descriptor.queues()).containsOnlyKeys(this.queue);
			assertThat(descriptor.queues().get(this.queue).ready()).isEqualTo(1);
			lock.unlock();
			assertThat(endpoint.describe().locks()).isEmpty();
		});
	}

	@Test
	void forceUnlockDeletesTheLockWhoeverHoldsIt() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislock").run((context) -> {
			RedisLockEndpoint endpoint = context.getBean(RedisLockEndpoint.class);
			RedisLock lock = context.getBean(RedisLockTemplate.class).getLock("stuck");
			lock.lock();
			assertThat(map(endpoint.forceUnlock("stuck"))).containsEntry("deleted", true);
			assertThat(lock.isLocked()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		});
	}

	@Test
	void showsAQueueWithItsDeadLettersAndUpcomingTasksAndActsOnIt() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislock").run((context) -> {
			RedisLockEndpoint endpoint = context.getBean(RedisLockEndpoint.class);
			TaskQueue queue = context.getBean(TaskQueue.class);
			queue.enqueue(this.queue, "later", "x", Duration.ofHours(1));
			RedisLockAdmin.QueueDetails details = (RedisLockAdmin.QueueDetails) endpoint.show("queues", this.queue,
					null, null);
			assertThat(details.summary().delayed()).isEqualTo(1);
			assertThat(details.summary().paused()).isFalse();
			assertThat(details.upcoming()).extracting(TaskPreview::id).containsExactly("later");
			assertThat(details.deadLetters()).isEmpty();
			assertThat(map(endpoint.act("queues", this.queue, "pause", null))).containsEntry("action", "pause");
			assertThat(endpoint.describe().queues().get(this.queue).paused()).isTrue();
			assertThat(queue.isPaused(this.queue)).isTrue();
			endpoint.act("queues", this.queue, "resume", null);
			assertThat(queue.isPaused(this.queue)).isFalse();
			assertThat(map(endpoint.act("queues", this.queue, "cancel", "later"))).containsEntry("cancelled", true);
			assertThat(queue.find(this.queue, "later")).isEmpty();
			assertThat(map(endpoint.act("queues", this.queue, "requeue", "nobody"))).containsEntry("requeued", false);
			assertThat(map(endpoint.act("queues", this.queue, "purge", null))).containsEntry("purged", 0L);
		});
	}

	/**
	 * 60 dead letters with a 1.9 MB payload and a 1.9 MB error each: the endpoint's
	 * answer for a thousand of them stays small.
	 */
	@Test
	void aQueueAnswerIsBoundedInBytesWhateverItsDeadLettersHold() {
		String queue = "endpoint-bounded-" + UUID.randomUUID();
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislock", "test.queue=" + queue)
			.run((context) -> {
				DeadLetterFixture.store(this.redis, queue, 60, 1_900_000);
				try {
					Object answer = context.getBean(RedisLockEndpoint.class).show("queues", queue, 1000, 1000);
					byte[] json = new JsonMapper().writeValueAsBytes(answer);
					System.out.println(
							"Endpoint answer to ?dead=1000 over 60 dead letters of 1.9 MB: " + json.length + " bytes");
					assertThat(json.length).isLessThan(300 * 1024);
				}
				finally {
					DeadLetterFixture.delete(this.redis, queue);
				}
			});
	}

	/**
	 * A queue's answer cuts errors and payloads to previews with their full sizes; one
	 * dead letter or waiting task is read whole at
	 * {@code /queues/{queue}/dead-letter?id=} or {@code /queues/{queue}/task?id=}, and
	 * one dead letter is deleted with the action {@code delete}.
	 */
	@Test
	void oneTaskIsReadWholeAndOneDeadLetterDeleted() {
		String queue = "endpoint-task-" + UUID.randomUUID();
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislock", "test.queue=" + queue)
			.run((context) -> {
				RedisLockEndpoint endpoint = context.getBean(RedisLockEndpoint.class);
				context.getBean(TaskQueue.class).enqueue(queue, "later", "x".repeat(5000), Duration.ofHours(1));
				DeadLetterFixture.store(this.redis, queue, 2, 10_000);
				try {
					RedisLockAdmin.QueueDetails details = (RedisLockAdmin.QueueDetails) endpoint.show("queues", queue,
							null, null);
					assertThat(details.deadLetters()).hasSize(2).first().satisfies((dead) -> {
						assertThat(dead.error()).hasSize(RedisLockAdmin.PREVIEW_BYTES);
						assertThat(dead.errorBytes()).isEqualTo(10_000);
						assertThat(dead.payload()).hasSize(RedisLockAdmin.PREVIEW_BYTES);
						assertThat(dead.payloadBytes()).isEqualTo(10_002);
					});
					assertThat(details.upcoming().get(0).payloadBytes()).isEqualTo(5002);
					DeadTask dead = (DeadTask) endpoint.task("queues", queue, "dead-letter", "dead-00");
					assertThat(dead.error()).hasSize(10_000);
					assertThat(dead.payload()).hasSize(10_002);
					TaskEntry waiting = (TaskEntry) endpoint.task("queues", queue, "task", "later");
					assertThat(waiting.payload()).hasSize(5002);
					assertThat(endpoint.task("queues", queue, "dead-letter", "nobody")).isNull();
					assertThat(map(endpoint.act("queues", queue, "delete", "dead-00"))).containsEntry("deleted", true);
					assertThat(map(endpoint.act("queues", queue, "delete", "dead-00"))).containsEntry("deleted", false);
					assertThat(context.getBean(DeadLetters.class).list(queue, 10)).extracting(DeadTask::id)
						.containsExactly("dead-01");
				}
				finally {
					DeadLetterFixture.delete(this.redis, queue);
				}
			});
	}

	/**
	 * What enqueue accepts as an id, the endpoint accepts: ids of thousands of characters
	 * and ids with control characters are cancelled and requeued like any other.
	 */
	@Test
	void idsThatEnqueueAcceptsAreCancelledAndRequeued() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislock").run((context) -> {
			RedisLockEndpoint endpoint = context.getBean(RedisLockEndpoint.class);
			TaskQueue queue = context.getBean(TaskQueue.class);
			String longId = "k".repeat(4096);
			String controlId = "line\nbreak\u0000";
			queue.enqueue(this.queue, longId, "x", Duration.ofHours(1));
			queue.enqueue(this.queue, controlId, "x", Duration.ofHours(1));
			assertThat(map(endpoint.act("queues", this.queue, "cancel", longId))).containsEntry("cancelled", true);
			assertThat(map(endpoint.act("queues", this.queue, "cancel", controlId))).containsEntry("cancelled", true);
			assertThat(queue.find(this.queue, longId)).isEmpty();
			assertThat(queue.find(this.queue, controlId)).isEmpty();
			assertThat(map(endpoint.act("queues", this.queue, "requeue", controlId))).containsEntry("requeued", false)
				.extractingByKey("message")
				.asString()
				.contains("line\\nbreak");
		});
	}

	@Test
	void looksUpWhoHoldsALock() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislock").run((context) -> {
			RedisLockEndpoint endpoint = context.getBean(RedisLockEndpoint.class);
			assertThat(endpoint.show("locks", "report:9", null, null))
				.isEqualTo(new RedisLockEndpoint.HolderDescriptor("report:9", null));
			RedisLock lock = context.getBean(RedisLockTemplate.class).getLock("report:9");
			lock.lock();
			try {
				// The instance record is written just after start-up, from a thread of
				// its own.
				await().atMost(Duration.ofSeconds(10))
					.until(() -> ((RedisLockEndpoint.HolderDescriptor) endpoint.show("locks", "report:9", null, null))
						.holder()
						.pid() == ProcessHandle.current().pid());
				RedisLockEndpoint.HolderDescriptor found = (RedisLockEndpoint.HolderDescriptor) endpoint.show("locks",
						"report:9", null, null);
				assertThat(found.holder()).isNotNull();
				assertThat(found.holder().host()).isNotEqualTo("unknown");
			}
			finally {
				lock.unlock();
			}
		});
	}

	@Test
	void badInputIsABadRequestThatChangesNothing() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislock").run((context) -> {
			RedisLockEndpoint endpoint = context.getBean(RedisLockEndpoint.class);
			TaskQueue queue = context.getBean(TaskQueue.class);
			queue.enqueue(this.queue, "kept", "x", Duration.ofHours(1));
			assertBadRequest(endpoint.act("queues", "no-such-queue", "pause", null), "Unknown queue 'no-such-queue'",
					this.queue);
			assertThat(queue.isPaused("no-such-queue")).isFalse();
			assertBadRequest(endpoint.act("queues", this.queue, "cancel", " "), "Give a task id");
			assertBadRequest(endpoint.act("queues", this.queue, "cancel", null), "Give a task id");
			assertThat(endpoint.act("queues", this.queue, "explode", null))
				.isInstanceOfSatisfying(WebEndpointResponse.class, (response) -> {
					assertThat(response.getStatus()).isEqualTo(400);
					assertThat(response.getBody()).isEqualTo(Map.of("error",
							"Unknown action 'explode': use one of [pause, resume, purge, requeue, cancel, delete]"));
				});
			assertBadRequest(endpoint.show("queues", this.queue, 1001, null), "'dead' must be between 1 and 1000");
			assertBadRequest(endpoint.show("queues", this.queue, null, -5),
					"'upcoming' must be between 1 and 1000, is -5");
			assertBadRequest(endpoint.show("tables", "x", null, null), "Unknown section 'tables'");
			assertThat(queue.find(this.queue, "kept")).isPresent();
			assertThat(queue.isPaused(this.queue)).isFalse();
		});
	}

	@Test
	void isReadOnlyByDefaultOnSpringBootsAccessModel() {
		Endpoint endpoint = RedisLockEndpoint.class.getAnnotation(Endpoint.class);
		assertThat(endpoint.id()).isEqualTo("redislock");
		assertThat(endpoint.defaultAccess()).isEqualTo(Access.READ_ONLY);
	}

	static class Mailer {

		@QueuedTask(queue = "${test.queue}")
		public void send(String address) {
		}

	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object answer) {
		return (Map<String, Object>) answer;
	}

	private static void assertBadRequest(Object answer, String... messageParts) {
		assertThat(answer).isInstanceOfSatisfying(WebEndpointResponse.class, (response) -> {
			assertThat(response.getStatus()).isEqualTo(400);
			assertThat(((Map<?, ?>) response.getBody()).get("error")).asString().contains(messageParts);
		});
	}

}
