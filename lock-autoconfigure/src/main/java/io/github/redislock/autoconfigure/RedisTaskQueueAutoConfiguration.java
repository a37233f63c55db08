package io.github.redislock.autoconfigure;

import io.github.redislock.internal.aop.QueuedTaskAdvisor;
import io.github.redislock.internal.aop.QueuedTaskInterceptor;
import io.github.redislock.internal.aop.QueuedTaskRegistrar;
import io.github.redislock.internal.aop.QueuedTaskSource;
import io.github.redislock.internal.queue.PayloadLimit;
import io.github.redislock.internal.queue.QueueExecutors;
import io.github.redislock.internal.queue.QueueSettings;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.internal.queue.RedisTaskQueue;
import io.github.redislock.queue.TaskQueue;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskDecorator;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration of the task queue: the {@link TaskQueue} bean, the workers of this
 * instance, and the {@code @QueuedTask} advice.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class,
		afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
				"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
				"org.springframework.boot.autoconfigure.aop.AopAutoConfiguration",
				"org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration" })
@ConditionalOnClass({ RedisConnectionFactory.class, JsonMapper.class })
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
@Import(RedisLockAnnotationAutoConfiguration.AutoProxyRegistrar.class)
public final class RedisTaskQueueAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(TaskQueue.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	RedisTaskQueue redisTaskQueue(RedisConnectionFactory connectionFactory, ObjectProvider<JsonMapper> json,
			RedisLockProperties properties, ObjectProvider<ObservationRegistry> observations) {
		RedisTaskQueue queue = new RedisTaskQueue(connectionFactory, json.getIfAvailable(JsonMapper::new),
				properties.getKeyPrefix());
		queue.setObservationRegistry(observations.getIfAvailable(() -> ObservationRegistry.NOOP));
		queue.setPayloadLimit(new PayloadLimit(properties.getQueue().getMaxPayloadSize().toBytes()));
		return queue;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisTaskQueue.class)
	QueueWorkers redisQueueWorkers(RedisTaskQueue queue, RedisLockProperties properties,
			RedisConnectionFactory connectionFactory, BeanFactory beanFactory,
			ObjectProvider<ThreadPoolTaskExecutorBuilder> poolBuilder,
			ObjectProvider<SimpleAsyncTaskExecutorBuilder> simpleBuilder, ObjectProvider<TaskDecorator> taskDecorator,
			Environment environment) {
		// Boot's builders carry the application's TaskDecorator and customizers; without
		// task execution auto-configuration, plain ones with the decorator applied.
		ThreadPoolTaskExecutorBuilder pool = poolBuilder
			.getIfAvailable(() -> withDecorator(new ThreadPoolTaskExecutorBuilder(), taskDecorator.getIfUnique()));
		SimpleAsyncTaskExecutorBuilder simple = simpleBuilder
			.getIfAvailable(() -> withDecorator(new SimpleAsyncTaskExecutorBuilder(), taskDecorator.getIfUnique()));
		return new QueueWorkers(queue, queueSettings(properties.getQueue()), connectionFactory, beanFactory,
				new QueueExecutors(pool::configure, simple::configure, Threading.VIRTUAL.isActive(environment)));
	}

	private static QueueSettings queueSettings(RedisLockProperties.Queue properties) {
		QueueSettings.Builder settings = QueueSettings.builder();
		PropertyMapper map = PropertyMapper.get();
		map.from(properties::getWorkers).to(settings::workers);
		map.from(properties::getPollInterval).to(settings::pollInterval);
		map.from(properties::getBatchSize).to(settings::batchSize);
		map.from(properties::getVisibilityTimeout).to(settings::visibilityTimeout);
		map.from(properties::getMaxAttempts).to(settings::maxAttempts);
		map.from(properties.getBackoff()::getInitial).to(settings::backoffInitial);
		map.from(properties.getBackoff()::getMultiplier).to(settings::backoffMultiplier);
		map.from(properties.getBackoff()::getMax).to(settings::backoffMax);
		map.from(properties::getShutdownTimeout).to(settings::shutdownTimeout);
		map.from(properties.getDeadLetter()::getMaxSize).to(settings::deadLetterMaxSize);
		map.from(properties.getDeadLetter()::getMaxAge).to(settings::deadLetterMaxAge);
		return settings.build();
	}

	private static ThreadPoolTaskExecutorBuilder withDecorator(ThreadPoolTaskExecutorBuilder builder,
			@Nullable TaskDecorator decorator) {
		return (decorator != null) ? builder.taskDecorator(decorator) : builder;
	}

	private static SimpleAsyncTaskExecutorBuilder withDecorator(SimpleAsyncTaskExecutorBuilder builder,
			@Nullable TaskDecorator decorator) {
		return (decorator != null) ? builder.taskDecorator(decorator) : builder;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static QueuedTaskSource redisQueuedTaskSource(Environment environment) {
		return new QueuedTaskSource(environment);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static QueuedTaskAdvisor redisQueuedTaskAdvisor(QueuedTaskSource redisQueuedTaskSource,
			ObjectProvider<RedisTaskQueue> queue, ObjectProvider<JsonMapper> json, Environment environment) {
		QueuedTaskAdvisor advisor = new QueuedTaskAdvisor(redisQueuedTaskSource,
				new QueuedTaskInterceptor(redisQueuedTaskSource, queue::getObject, () -> queue.getObject().json()));
		// Outside @Transactional: the call itself opens no transaction, and a caller's
		// transaction defers the enqueue to its commit.
		advisor.setOrder(RedisLockProperties.adviceOrder(environment));
		return advisor;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static QueuedTaskRegistrar redisQueuedTaskRegistrar(QueuedTaskSource redisQueuedTaskSource,
			ObjectProvider<QueueWorkers> workers, ListableBeanFactory beanFactory) {
		return new QueuedTaskRegistrar(redisQueuedTaskSource, workers::getIfAvailable,
				() -> noWorkersReason(beanFactory));
	}

	private static String noWorkersReason(ListableBeanFactory beanFactory) {
		String[] queues = beanFactory.getBeanNamesForType(TaskQueue.class, false, false);
		if (queues.length == 1 && !beanFactory.isTypeMatch(queues[0], RedisTaskQueue.class)) {
			return "the application's TaskQueue bean '" + queues[0] + "' (" + beanFactory.getType(queues[0], false)
					+ ") is not a RedisTaskQueue, and only a RedisTaskQueue" + " has workers";
		}
		String[] factories = beanFactory.getBeanNamesForType(RedisConnectionFactory.class, false, false);
		if (factories.length > 1) {
			return "there are " + factories.length + " RedisConnectionFactory beans "
					+ java.util.Arrays.toString(factories) + " and none is @Primary";
		}
		return "no RedisConnectionFactory is configured";
	}

}
