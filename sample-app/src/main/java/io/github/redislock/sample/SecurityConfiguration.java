package io.github.redislock.sample;

import io.github.redislock.autoconfigure.RedisLockProperties;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The dashboard needs a signed-in user; its write actions need the role
 * {@code REDISLOCK_ADMIN} ({@code redislock.dashboard.role}). The sample's own endpoints
 * and the actuator stay open, as before.
 * <p>
 * Demo users only — replace them with your own user store: {@code operator} (password
 * {@code sample.operator-password}, default {@code operator}) may act, {@code viewer}
 * ({@code viewer}) only looks.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class SecurityConfiguration {

	@Bean
	SecurityFilterChain security(HttpSecurity http, RedisLockProperties properties) throws Exception {
		String dashboard = properties.getDashboard().getPath();
		http.authorizeHttpRequests((requests) -> requests.requestMatchers(dashboard, dashboard + "/**")
			.authenticated()
			.anyRequest()
			.permitAll())
			.formLogin(Customizer.withDefaults())
			// CSRF protection where a browser session acts: the dashboard.
			.csrf((csrf) -> csrf.ignoringRequestMatchers((request) -> !request.getRequestURI().startsWith(dashboard)));
		return http.build();
	}

	@Bean
	UserDetailsService users(Environment environment) {
		return new InMemoryUserDetailsManager(User.withUsername("operator")
			.password("{noop}" + environment.getProperty("sample.operator-password", "operator"))
			.roles("REDISLOCK_ADMIN")
			.build(), User.withUsername("viewer").password("{noop}viewer").roles("VIEWER").build());
	}

}
