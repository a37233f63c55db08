package io.github.redislock.actuate.endpoint;

import java.time.Duration;
import java.util.UUID;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockEndpointAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
					RedisLockEndpointAutoConfiguration.class))
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
