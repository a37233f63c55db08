package io.github.redislock.internal.aop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code @DistributedLock} in an application context on a real Redis.
 */
@ExtendWith(RedisExtension.class)
class DistributedLockAnnotationTests {

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	/** Another application instance on the same Redis. */
	private final DefaultRedisLockTemplate otherInstance;

	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	DistributedLockAnnotationTests(RedisServer redis) {
		this.redis = redis;
		this.runner = LockApplicationContextRunner.on(redis)
			.withPropertyValues("test.wait-time=150ms")
			.withUserConfiguration(ServiceConfiguration.class);
		this.otherInstance = new DefaultRedisLockTemplate(redis.connectionFactory());
	}

	@AfterEach
	void close() throws Exception {
		this.otherThread.shutdownNow();
		this.otherInstance.destroy();
	}

	private RedisLock heldElsewhere(String name) throws Exception {
		RedisLock lock = this.otherInstance.getLock(name);
		assertThat(this.otherThread.submit(() -> lock.tryLock()).get(10, TimeUnit.SECONDS)).isTrue();
		return lock;
	}

	private void releaseElsewhere(RedisLock lock) throws Exception {
		this.otherThread.submit(lock::unlock).get(10, TimeUnit.SECONDS);
	}

	@Test
	void methodRunsUnderTheLockNamedByNameAndKeys() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			assertThat(service.pay(42L, "eur")).isEqualTo("orders:42:eur held");
			assertThat(context.getBean(RedisLockTemplate.class).getLock("orders:42:eur").isLocked()).isFalse();
		});
	}

	@Test
	void keysReadPropertiesAndIndexedParameters() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			assertThat(service.ship(new Order("A-7"))).isEqualTo("OrderService.ship:A-7");
			assertThat(service.byIndex("x", 3)).isEqualTo("indexed:x:3");
		});
	}

	@Test
	void heldLockThrowsNamingTheLockAndTheWaitTime() throws Exception {
		RedisLock held = heldElsewhere("orders:7:usd");
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.pay(7L, "usd"))
				.withMessageContaining("'orders:7:usd'")
				.withMessageContaining("PT0.15S")
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("orders:7:usd"));
			assertThat(service.calls()).isZero();
		});
		releaseElsewhere(held);
	}

	@Test
	void heldLockSkipsTheMethodReturningEmptyValues() throws Exception {
		RedisLock held = heldElsewhere("skip");
		this.runner.run((context) -> {
			SkippingService service = context.getBean(SkippingService.class);
			assertThat(service.text()).isNull();
			assertThat(service.optional()).isEmpty();
			assertThat(service.number()).isZero();
			assertThat(service.large()).isZero();
			assertThat(service.flag()).isFalse();
			service.nothing();
			assertThat(service.calls()).isZero();
		});
		releaseElsewhere(held);
		this.runner.run((context) -> {
			SkippingService service = context.getBean(SkippingService.class);
			assertThat(service.text()).isEqualTo("ran");
			assertThat(service.optional()).contains("ran");
			assertThat(service.number()).isEqualTo(1);
			assertThat(service.flag()).isTrue();
		});
	}

	@Test
	void heldLockCallsTheFallbackWithTheArguments() throws Exception {
		RedisLock held = heldElsewhere("reports:bob");
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			assertThat(service.report("bob")).isEqualTo("busy bob");
			assertThat(service.report("alice")).isEqualTo("report for alice");
		});
		releaseElsewhere(held);
	}

	@Test
	void waitTimePlaceholderIsResolved() throws Exception {
		RedisLock held = heldElsewhere("orders:1:eur");
		this.runner.run((context) -> {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> context.getBean(OrderService.class).pay(1L, "eur"));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
		});
		releaseElsewhere(held);
	}

	@Test
	void nestedCallOnTheSameLockReentersIt() {
		this.runner.run((context) -> {
			assertThat(context.getBean(OuterService.class).outer("n1")).isEqualTo(2);
			assertThat(context.getBean(RedisLockTemplate.class).getLock("nested:n1").isLocked()).isFalse();
		});
	}

	@Test
	void nullOrBlankKeyFailsTheCallNamingMethodAndExpression() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			assertThatIllegalArgumentException().isThrownBy(() -> service.pay(5L, null))
				.withMessageContaining("OrderService.pay(long, String)")
				.withMessageContaining("'#currency'")
				.withMessageContaining("null");
			assertThatIllegalArgumentException().isThrownBy(() -> service.pay(5L, " ")).withMessageContaining("blank");
			assertThat(service.calls()).isZero();
		});
	}

	@Test
	void failingMethodReleasesTheLock() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service.fail("f1"));
			assertThat(context.getBean(RedisLockTemplate.class).getLock("fail:f1").isLocked()).isFalse();
		});
	}

	@Test
	void lockIsTakenByTheCallingThreadOnly() throws Exception {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			assertThat(this.otherThread.submit(() -> service.pay(9L, "chf")).get()).isEqualTo("orders:9:chf held");
			assertThat(service.pay(9L, "chf")).isEqualTo("orders:9:chf held");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

		@Bean
		SkippingService skippingService() {
			return new SkippingService();
		}

		@Bean
		InnerService innerService() {
			return new InnerService();
		}

		@Bean
		OuterService outerService(InnerService inner) {
			return new OuterService(inner);
		}

	}

	record Order(String id) {
	}

	static class OrderService {

		private int calls;

		// Read through a method: fields of a class-based proxy are not the target's.
		public int calls() {
			return this.calls;
		}

		@DistributedLock(name = "orders", key = { "#orderId", "#currency" }, waitTime = "${test.wait-time}")
		public String pay(long orderId, String currency) {
			this.calls++;
			return LockContext.lockName() + (LockContext.isHeld() ? " held" : " lost");
		}

		@DistributedLock(key = "#order.id", waitTime = "0")
		public String ship(Order order) {
			return LockContext.lockName();
		}

		@DistributedLock(name = "indexed", key = { "#p0", "#a1" }, waitTime = "0")
		public String byIndex(String first, int second) {
			return LockContext.lockName();
		}

		@DistributedLock(name = "reports", key = "#user", waitTime = "0", fallback = "busy")
		public String report(String user) {
			return "report for " + user;
		}

		public String busy(String user) {
			return "busy " + user;
		}

		@DistributedLock(name = "fail", key = "#id")
		public void fail(String id) {
			throw new IllegalStateException("failed");
		}

	}

	static class SkippingService {

		private int calls;

		public int calls() {
			return this.calls;
		}

		@DistributedLock(name = "skip", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public String text() {
			this.calls++;
			return "ran";
		}

		@DistributedLock(name = "skip", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public Optional<String> optional() {
			this.calls++;
			return Optional.of("ran");
		}

		@DistributedLock(name = "skip", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public int number() {
			this.calls++;
			return 1;
		}

		@DistributedLock(name = "skip", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public long large() {
			this.calls++;
			return 1;
		}

		@DistributedLock(name = "skip", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public boolean flag() {
			this.calls++;
			return true;
		}

		@DistributedLock(name = "skip", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public void nothing() {
			this.calls++;
		}

	}

	static class OuterService {

		private final InnerService inner;

		OuterService(InnerService inner) {
			this.inner = inner;
		}

		@DistributedLock(name = "nested", key = "#id", waitTime = "0")
		public int outer(String id) {
			return this.inner.inner(id);
		}

	}

	static class InnerService {

		@Autowired
		RedisLockTemplate template;

		@DistributedLock(name = "nested", key = "#id", waitTime = "0")
		public int inner(String id) {
			return this.template.getLock("nested:" + id).getHoldCount();
		}

	}

}
