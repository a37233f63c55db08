package io.github.redislock.autoconfigure;

import io.github.redislock.actuate.endpoint.RedisLockEndpoint;
import io.github.redislock.actuate.endpoint.RedisLockEndpointWebExtension;
import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Auto-configuration of the {@code redislock} actuator endpoint. Like every endpoint but
 * health, it is not exposed over HTTP unless the application includes it in
 * {@code management.endpoints.web.exposure.include}; its access is read-only by default,
 * so its force-unlock operation is offered only with
 * {@code management.endpoint.redislock.access=unrestricted}. Over HTTP, its operations
 * answer 503 with a message while Redis cannot be reached
 * ({@link RedisLockEndpointWebExtension}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAdminAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(RedisLockAdmin.class)
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@ConditionalOnAvailableEndpoint(RedisLockEndpoint.class)
@ImportRuntimeHints(RedisLockEndpointAutoConfiguration.EndpointRuntimeHints.class)
public final class RedisLockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(RedisLockEndpoint.class)
	RedisLockEndpoint redisLockEndpoint(RedisLockAdmin redisLockAdmin) {
		return new RedisLockEndpoint(redisLockAdmin);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisLockEndpoint.class)
	@ConditionalOnAvailableEndpoint(endpoint = RedisLockEndpoint.class, exposure = EndpointExposure.WEB)
	RedisLockEndpointWebExtension redisLockEndpointWebExtension(RedisLockEndpoint redisLockEndpoint) {
		return new RedisLockEndpointWebExtension(redisLockEndpoint);
	}

	/**
	 * Hints for a native image: what the operations answer as {@code Object} (Spring Boot
	 * registers only declared return types), written as JSON by Jackson through
	 * reflection.
	 */
	static final class EndpointRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
					RedisLockEndpoint.RedisLockDescriptor.class, RedisLockEndpoint.HolderDescriptor.class,
					RedisLockAdmin.QueueDetails.class, DeadTask.class, TaskEntry.class);
		}

	}

}
