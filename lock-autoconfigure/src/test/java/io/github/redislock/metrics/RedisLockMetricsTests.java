package io.github.redislock.metrics;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.annotation.ReadLock;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The lock meters, recorded against a real Redis into a {@link SimpleMeterRegistry}.
 */
@ExtendWith(RedisExtension.class)
class RedisLockMetricsTests {

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	RedisLockMetricsTests(RedisServer redis) {
		this.redis = redis;
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisLockMetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(Orders.class);
	}

	@Test
	void nameTagIsTheDeclaredNameNeverThePerCallKey() {
		this.runner.run((context) -> {
			Orders orders = context.getBean(Orders.class);
			for (int i = 0; i < 50; i++) {
				orders.pay(UUID.randomUUID().toString());
			}
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("redislock.acquire")
				.tags("name", "orders", "type", "exclusive", "outcome", "acquired")
				.timer()
				.count()).isEqualTo(50);
			assertThat(registry.get("redislock.held").tags("name", "orders", "type", "exclusive").timer().count())
				.isEqualTo(50);
			Set<String> names = registry.getMeters()
				.stream()
				.map(Meter::getId)
				.filter((id) -> id.getName().startsWith("redislock."))
				.map((id) -> id.getTag("name"))
				.filter((name) -> name != null)
				.collect(Collectors.toSet());
			assertThat(names).containsExactly("orders");
		});
	}

	@Test
	void skipsAreTaggedAndReadLocksTyped() throws Exception {
		this.runner.run((context) -> {
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			String id = UUID.randomUUID().toString();
			ExecutorService other = Executors.newSingleThreadExecutor();
			try {
				RedisLock held = template.getLock("orders:" + id);
				assertThat(other.submit(() -> held.tryLock()).get()).isTrue();
				assertThat(context.getBean(Orders.class).tryPay(id)).isFalse();
				other.submit(held::unlock).get();
			}
			finally {
				other.shutdownNow();
			}
			context.getBean(Orders.class).read(id);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			// onFailure = SKIP: an expected outcome, not a time-out.
			assertThat(registry.get("redislock.acquire").tags("name", "orders", "outcome", "skipped").timer().count())
				.isEqualTo(1);
			assertThat(registry.get("redislock.acquire").tags("name", "catalog", "type", "read").timer().count())
				.isEqualTo(1);
		});
	}

	@Test
	void templateLockNamesWithoutAColonCannotCreateAMeterPerValue() {
		this.runner.run((context) -> {
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			for (int i = 0; i < 150; i++) {
				RedisLock lock = template.getLock("job-" + i + "-" + UUID.randomUUID());
				lock.lock();
				lock.unlock();
			}
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Set<String> names = registry.find("redislock.held")
				.timers()
				.stream()
				.map((timer) -> timer.getId().getTag("name"))
				.collect(java.util.stream.Collectors.toSet());
			assertThat(names).hasSizeLessThanOrEqualTo(101).contains("other");
			assertThat(registry.get("redislock.held").tags("name", "other").timer().count()).isEqualTo(50);
		});
	}

	@Test
	void templateLocksAreMeasuredUnderTheNameBeforeTheFirstColon() {
		this.runner.run((context) -> {
			RedisLock lock = context.getBean(RedisLockTemplate.class).getLock("invoices:" + UUID.randomUUID());
			lock.lock();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("redislock.active").gauge().value()).isEqualTo(1);
			lock.unlock();
			assertThat(registry.get("redislock.active").gauge().value()).isZero();
			assertThat(registry.get("redislock.held").tags("name", "invoices").timer().count()).isEqualTo(1);
		});
	}

	@Test
	void renewalsAndLostLocksAreCounted() {
		this.runner.withPropertyValues("redislock.lease-time=300ms").run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			String name = "renewed:" + UUID.randomUUID();
			RedisLock lock = context.getBean(RedisLockTemplate.class).getLock(name);
			lock.lock();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> registry.get("redislock.renewals").counter().count() >= 2);
			this.redis.template().delete("redislock:{" + name + "}");
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
			assertThat(registry.get("redislock.lost").tags("name", "renewed").counter().count()).isEqualTo(1);
		});
	}

	static class Orders {

		@DistributedLock(name = "orders", key = "#id", waitTime = "0")
		public void pay(String id) {
		}

		@DistributedLock(name = "orders", key = "#id", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public boolean tryPay(String id) {
			return true;
		}

		@ReadLock(name = "catalog", key = "#id", waitTime = "0")
		public void read(String id) {
		}

	}

}
