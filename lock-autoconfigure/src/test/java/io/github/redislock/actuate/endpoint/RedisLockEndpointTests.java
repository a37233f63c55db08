package io.github.redislock.actuate.endpoint;

import java.time.Duration;
import java.util.UUID;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAdminAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockEndpointAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
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

	RedisLockEndpointTests(RedisServer redis) {
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
			assertThat(endpoint.forceUnlock("stuck")).containsEntry("deleted", true);
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
			assertThat(details.upcoming()).extracting(TaskEntry::id).containsExactly("later");
			assertThat(details.deadLetters()).isEmpty();
			assertThat(endpoint.act("queues", this.queue, "pause", null)).containsEntry("action", "pause");
			assertThat(endpoint.describe().queues().get(this.queue).paused()).isTrue();
			assertThat(queue.isPaused(this.queue)).isTrue();
			endpoint.act("queues", this.queue, "resume", null);
			assertThat(queue.isPaused(this.queue)).isFalse();
			assertThat(endpoint.act("queues", this.queue, "cancel", "later")).containsEntry("cancelled", true);
			assertThat(queue.find(this.queue, "later")).isEmpty();
			assertThat(endpoint.act("queues", this.queue, "requeue", "nobody")).containsEntry("requeued", false);
			assertThat(endpoint.act("queues", this.queue, "purge", null)).containsEntry("purged", 0L);
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
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.act("queues", "no-such-queue", "pause", null))
				.withMessageContaining("Unknown queue 'no-such-queue'")
				.withMessageContaining(this.queue);
			assertThat(queue.isPaused("no-such-queue")).isFalse();
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.act("queues", this.queue, "cancel", "x".repeat(1001)))
				.withMessageContaining("1001 characters long, at most 1000");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.act("queues", this.queue, "cancel", "bad\nid"))
				.withMessageContaining("control characters");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.act("queues", this.queue, "cancel", null))
				.withMessageContaining("Give a task id");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.act("queues", this.queue, "explode", null))
				.withMessageContaining("Unknown action 'explode'");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.show("queues", this.queue, 1001, null))
				.withMessageContaining("'dead' must be between 1 and 1000");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.show("queues", this.queue, null, -5))
				.withMessageContaining("'upcoming' must be between 1 and 1000, is -5");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.show("tables", "x", null, null))
				.withMessageContaining("Unknown section 'tables'");
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

}
