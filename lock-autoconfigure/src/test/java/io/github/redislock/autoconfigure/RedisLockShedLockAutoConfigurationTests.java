package io.github.redislock.autoconfigure;

import java.util.Optional;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.shedlock.RedisLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockShedLockAutoConfiguration}, without a Redis server.
 */
class RedisLockShedLockAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis.runner(RedisLockAutoConfiguration.class,
			RedisLockShedLockAutoConfiguration.class);

	@Test
	void providesShedLocksLockProviderOnTheLockTemplate() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LockProvider.class).hasBean("redisLockProvider");
			assertThat(context.getBean(LockProvider.class)).isInstanceOf(RedisLockProvider.class);
		});
	}

	@Test
	void aLockProviderOfTheApplicationsOwnWins() {
		LockProvider own = (configuration) -> Optional.empty();
		this.runner.withBean("myLockProvider", LockProvider.class, () -> own).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LockProvider.class).doesNotHaveBean("redisLockProvider");
			assertThat(context.getBean(LockProvider.class)).isSameAs(own);
		});
	}

	@Test
	void withoutShedLockThereIsNoLockProvider() {
		this.runner.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("redisLockProvider"));
	}

	@Test
	void withoutRedisLockShedLockThereIsNoLockProvider() {
		this.runner.withClassLoader(new FilteredClassLoader(RedisLockProvider.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
	}

	@Test
	void disabledStarterHasNoLockProvider() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
	}

	@Test
	void aLockTemplateOfTheApplicationsOwnBacksTheLockProvider() {
		this.runner
			.withBean("myLocks", RedisLockTemplate.class, () -> UnstartedRedis.unsupported(RedisLockTemplate.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockTemplate.class).hasBean("myLocks");
				assertThat(context).hasSingleBean(RedisLockProvider.class);
			});
	}

	@Test
	void twoLockTemplatesWithoutAPrimaryOneHaveNoLockProvider() {
		this.runner
			.withBean("someLocks", RedisLockTemplate.class, () -> UnstartedRedis.unsupported(RedisLockTemplate.class))
			.withBean("otherLocks", RedisLockTemplate.class, () -> UnstartedRedis.unsupported(RedisLockTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
	}

	@Test
	void withoutALockTemplateThereIsNoLockProvider() {
		UnstartedRedis.runner(RedisLockShedLockAutoConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
	}

}
