package io.github.redislock.autoconfigure;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.aop.DistributedLockAdvisor;
import io.github.redislock.internal.aop.DistributedLockInterceptor;
import io.github.redislock.internal.aop.LockAnnotationValidator;
import io.github.redislock.internal.aop.LockOperationSource;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Auto-configuration of {@code @DistributedLock}: the advisor that runs annotated methods
 * under their locks, and the start-up check of every annotation.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RedisLockAutoConfiguration.class, RedLockAutoConfiguration.class },
		afterName = "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration")
@ConditionalOnClass(AopConfigUtils.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@Import(RedisLockAnnotationAutoConfiguration.AutoProxyRegistrar.class)
public final class RedisLockAnnotationAutoConfiguration {

	private static final String REDLOCK_TEMPLATE = "redLockTemplate";

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockOperationSource redisLockOperationSource(Environment environment,
			ObjectProvider<RedisLockProperties> properties, ListableBeanFactory beanFactory) {
		LockOperationSource source = new LockOperationSource(environment,
				() -> properties.getIfAvailable(RedisLockProperties::new).getWaitTime(),
				() -> beanFactory.containsBean(REDLOCK_TEMPLATE));
		source.setDefaultLeaseTime(() -> properties.getIfAvailable(RedisLockProperties::new).getLeaseTime());
		return source;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static DistributedLockAdvisor redisLockAdvisor(LockOperationSource redisLockOperationSource,
			ObjectProvider<RedisLockTemplate> template, Environment environment, ListableBeanFactory beanFactory,
			ObjectProvider<ObservationRegistry> observations) {
		DistributedLockInterceptor interceptor = new DistributedLockInterceptor(redisLockOperationSource,
				template::getObject, () -> beanFactory.getBean(REDLOCK_TEMPLATE, RedisLockTemplate.class));
		interceptor.setObservationRegistry(() -> observations.getIfAvailable(() -> ObservationRegistry.NOOP));
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(redisLockOperationSource, interceptor);
		advisor.setOrder(RedisLockProperties.adviceOrder(environment));
		return advisor;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockAnnotationValidator redisLockAnnotationValidator(LockOperationSource redisLockOperationSource,
			ObjectProvider<RedisLockTemplate> template) {
		return new LockAnnotationValidator(redisLockOperationSource, () -> template.getIfAvailable() != null);
	}

	/**
	 * Makes sure advisors are applied even when Spring Boot's AOP auto-configuration is
	 * turned off ({@code spring.aop.auto=false}), as {@code @EnableTransactionManagement}
	 * does.
	 */
	static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
