package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.internal.aop.DistributedLockAdvisor;
import io.github.redislock.internal.aop.DistributedLockInterceptor;
import io.github.redislock.internal.aop.LockAnnotationValidator;
import io.github.redislock.internal.aop.LockOperationSource;
import org.junit.jupiter.api.Test;

import org.springframework.aop.ClassFilter;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockAnnotationAutoConfiguration}, without a Redis server.
 */
class RedisLockAnnotationAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis.runner(AopAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class);

	@Test
	void providesTheAdviceOrderedInsideTransactionsByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(DistributedLockAdvisor.class)
				.hasSingleBean(LockOperationSource.class)
				.hasSingleBean(LockAnnotationValidator.class);
			assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
				.isEqualTo(Ordered.LOWEST_PRECEDENCE - 100);
		});
	}

	@Test
	void adviceOrderIsConfigurable() {
		this.runner.withPropertyValues("redislock.advice-order=7")
			.run((context) -> assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(7));
	}

	@Test
	void theAdvicePassesOverClassesThatCannotCarryTheAnnotations() {
		this.runner.run((context) -> {
			ClassFilter classes = context.getBean(DistributedLockAdvisor.class).getPointcut().getClassFilter();
			assertThat(classes.matches(String.class)).isFalse();
			assertThat(classes.matches(ArrayList.class)).isFalse();
			assertThat(classes.matches(Guarded.class)).isTrue();
		});
	}

	@Test
	void anAdvisorOfTheApplicationsOwnWins() {
		this.runner.withBean("myAdvisor", DistributedLockAdvisor.class, () -> {
			LockOperationSource operations = operations();
			return new DistributedLockAdvisor(operations,
					new DistributedLockInterceptor(operations, () -> null, () -> null));
		}).run((context) -> assertThat(context).hasSingleBean(DistributedLockAdvisor.class).hasBean("myAdvisor"));
	}

	@Test
	void anOperationSourceOfTheApplicationsOwnIsTheOneTheAdviceUses() {
		this.runner.withBean("myOperations", LockOperationSource.class, this::operations)
			.run((context) -> assertThat(context).hasSingleBean(LockOperationSource.class).hasBean("myOperations"));
	}

	private LockOperationSource operations() {
		return new LockOperationSource(new StandardEnvironment(), () -> Duration.ZERO, () -> false);
	}

	@Test
	void annotatedMethodsAreCheckedAtStart() {
		this.runner.withBean(Broken.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Broken.run")
				.hasStackTraceContaining("#nope +"));
	}

	@Test
	void disabledRegistersNoAdvice() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistributedLockAdvisor.class));
	}

	static class Guarded {

		@DistributedLock(name = "guarded")
		public void run() {
		}

	}

	static class Broken {

		@DistributedLock(name = "broken", key = "#nope +")
		public void run(String id) {
		}

	}

}
