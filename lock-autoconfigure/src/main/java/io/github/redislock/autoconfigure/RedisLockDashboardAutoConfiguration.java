package io.github.redislock.autoconfigure;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.internal.dashboard.DashboardRoutes;
import io.github.redislock.internal.dashboard.DashboardRuntimeHints;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.context.reactive.ConfigurableReactiveWebEnvironment;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Auto-configuration of the dashboard of a servlet web application: one page at
 * {@code redislock.dashboard.path} (default {@code /redislock}) showing the queues, their
 * dead letters and upcoming tasks, this instance's held locks and a holder lookup, with
 * write actions for permitted users. Off unless {@code redislock.dashboard.enabled=true}.
 * On a reactive (WebFlux) application the page is not served, and a WARN line says so.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAdminAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "redislock.dashboard.enabled")
@ConditionalOnBooleanProperty(name = "redislock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedisLockDashboardAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass({ RouterFunction.class, DashboardRoutes.class })
	@ConditionalOnBean(RedisLockAdmin.class)
	@ImportRuntimeHints(DashboardRuntimeHints.class)
	static class ServletDashboardConfiguration {

		@Bean
		RouterFunction<ServerResponse> redisLockDashboard(RedisLockAdmin admin, RedisLockProperties properties,
				ResourceLoader resourceLoader) {
			RedisLockProperties.Dashboard dashboard = properties.getDashboard();
			return new DashboardRoutes(admin, dashboard.getPath(), dashboard.getRole(), dashboard.isWriteEnabled(),
					dashboard.getRefreshInterval(), DashboardRoutes.isSecurityPresent(resourceLoader.getClassLoader()),
					dashboard.getAllowedHosts())
				.routes();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(ReactiveApplicationCondition.class)
	static class ReactiveDashboardConfiguration {

		@Bean
		static DashboardNotServed redisLockDashboardNotServed() {
			return new DashboardNotServed();
		}

	}

	/**
	 * Matches a reactive web application, whether or not WebFlux's own classes are there
	 * to check (Boot's condition for reactive applications looks for them).
	 */
	static final class ReactiveApplicationCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			boolean reactive = context.getEnvironment() instanceof ConfigurableReactiveWebEnvironment
					|| context.getResourceLoader() instanceof ReactiveWebApplicationContext;
			return reactive ? ConditionOutcome.match("a reactive web application")
					: ConditionOutcome.noMatch("not a reactive web application");
		}

	}

	/**
	 * Says, once at start-up, that the dashboard asked for is not served: a property that
	 * is silently ignored costs an operator a search.
	 */
	static final class DashboardNotServed implements InitializingBean {

		private static final Log logger = LogFactory.getLog(RedisLockDashboardAutoConfiguration.class);

		@Override
		public void afterPropertiesSet() {
			logger.warn("redislock.dashboard.enabled=true is ignored: the dashboard needs Spring MVC (a servlet web"
					+ " application) and this application is reactive (WebFlux). Serve it from a servlet"
					+ " application, or use the actuator endpoint 'redislock'.");
		}

	}

}
