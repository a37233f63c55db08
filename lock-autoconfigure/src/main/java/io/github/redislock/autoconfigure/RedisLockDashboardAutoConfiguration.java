package io.github.redislock.autoconfigure;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.internal.dashboard.DashboardRoutes;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Auto-configuration of the dashboard of a servlet web application: one page at
 * {@code redislock.dashboard.path} (default {@code /redislock}) showing the queues, their
 * dead letters and upcoming tasks, this instance's held locks and a holder lookup, with
 * write actions for permitted users. Off unless {@code redislock.dashboard.enabled=true}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAdminAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBooleanProperty(name = "redislock.dashboard.enabled")
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@ConditionalOnBean(RedisLockAdmin.class)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedisLockDashboardAutoConfiguration {

	@Bean
	RouterFunction<ServerResponse> redisLockDashboard(RedisLockAdmin admin, RedisLockProperties properties,
			ResourceLoader resourceLoader) {
		RedisLockProperties.Dashboard dashboard = properties.getDashboard();
		return new DashboardRoutes(admin, dashboard.getPath(), dashboard.getRole(), dashboard.isWriteEnabled(),
				dashboard.getRefreshInterval(), DashboardRoutes.isSecurityPresent(resourceLoader.getClassLoader()))
			.routes();
	}

}
