package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.aop.QueuedTaskAdvisor;
import io.github.redislock.internal.aop.QueuedTaskInterceptor;
import io.github.redislock.internal.aop.QueuedTaskSource;
import io.github.redislock.internal.queue.QueueExecutors;
import io.github.redislock.internal.queue.QueueSettings;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.internal.queue.RedisTaskQueue;
import io.github.redislock.queue.TaskQueue;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisTaskQueueAutoConfiguration}, without a Redis server.
 */
class RedisTaskQueueAutoConfigurationTests {

	private final ApplicationContextRunner runner = UnstartedRedis.runner(AopAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class);

	@Test
	void providesTheQueueItsWorkersAndTheAdvice() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(TaskQueue.class)
			.hasSingleBean(QueueWorkers.class)
			.hasSingleBean(QueuedTaskAdvisor.class));
	}

	@Test
	void withoutJacksonLocksStayAndTheQueueBacksOff() {
		this.runner.withClassLoader(new FilteredClassLoader(JsonMapper.class)).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLockTemplate.class);
			assertThat(context).doesNotHaveBean(TaskQueue.class).doesNotHaveBean(QueueWorkers.class);
		});
	}

	@Test
	void aRedisTaskQueueOfTheApplicationsOwnIsTheOneTheWorkersUse() {
		this.runner
			.withBean("myQueue", RedisTaskQueue.class,
					() -> new RedisTaskQueue(UnstartedRedis.connectionFactory(), new JsonMapper(), "mine"))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(TaskQueue.class).hasBean("myQueue");
				assertThat(context).hasSingleBean(QueueWorkers.class);
			});
	}

	@Test
	void aTaskQueueOfAnotherKindFailsStartWithQueuedTasksNamingWhy() {
		this.runner.withBean("myQueue", TaskQueue.class, () -> UnstartedRedis.unsupported(TaskQueue.class))
			.withBean("mailer", Mailer.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Bean 'mailer'")
				.hasMessageContaining("TaskQueue bean 'myQueue'")
				.hasMessageContaining("is not a RedisTaskQueue")
				.hasMessageNotContaining("no RedisConnectionFactory"));
	}

	@Test
	void aTaskQueueOfAnotherKindIsFineWithoutQueuedTasks() {
		this.runner.withBean("myQueue", TaskQueue.class, () -> UnstartedRedis.unsupported(TaskQueue.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockTemplate.class)
				.doesNotHaveBean(QueueWorkers.class));
	}

	@Test
	void workersOfTheApplicationsOwnWin() {
		RedisTaskQueue queue = new RedisTaskQueue(UnstartedRedis.connectionFactory(), new JsonMapper(), "mine");
		QueueSettings settings = QueueSettings.builder()
			.workers(1)
			.pollInterval(Duration.ofSeconds(1))
			.maxAttempts(3)
			.backoffMax(Duration.ofMinutes(1))
			.shutdownTimeout(Duration.ofSeconds(5))
			.deadLetterMaxSize(100)
			.deadLetterMaxAge(Duration.ofDays(1))
			.build();
		this.runner.withBean("myQueue", RedisTaskQueue.class, () -> queue)
			.withBean("myWorkers", QueueWorkers.class,
					() -> new QueueWorkers(queue, settings, UnstartedRedis.connectionFactory(),
							new DefaultListableBeanFactory(), QueueExecutors.defaults()))
			.run((context) -> assertThat(context).hasSingleBean(QueueWorkers.class).hasBean("myWorkers"));
	}

	@Test
	void anAdvisorOfTheApplicationsOwnWins() {
		this.runner.withBean("myAdvisor", QueuedTaskAdvisor.class, () -> {
			QueuedTaskSource operations = new QueuedTaskSource(new StandardEnvironment());
			return new QueuedTaskAdvisor(operations,
					new QueuedTaskInterceptor(operations, () -> null, JsonMapper::new));
		}).run((context) -> assertThat(context).hasSingleBean(QueuedTaskAdvisor.class).hasBean("myAdvisor"));
	}

	@Test
	void anOperationSourceOfTheApplicationsOwnIsTheOneTheAdviceUses() {
		this.runner
			.withBean("myOperations", QueuedTaskSource.class, () -> new QueuedTaskSource(new StandardEnvironment()))
			.run((context) -> assertThat(context).hasSingleBean(QueuedTaskSource.class).hasBean("myOperations"));
	}

	@Test
	void twoConnectionFactoriesWithoutAPrimaryOneMakeItBackOff() {
		this.runner.withBean("otherConnectionFactory", RedisConnectionFactory.class, UnstartedRedis::connectionFactory)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TaskQueue.class));
	}

	@Test
	void disabledRegistersNothing() {
		this.runner.withPropertyValues("redislock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(TaskQueue.class)
				.doesNotHaveBean(QueueWorkers.class)
				.doesNotHaveBean(QueuedTaskAdvisor.class));
	}

	static class Mailer {

		@QueuedTask(queue = "mail")
		public void send(String to) {
		}

	}

}
