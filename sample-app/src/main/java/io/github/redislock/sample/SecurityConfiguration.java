package io.github.redislock.sample;

import io.github.redislock.autoconfigure.RedisLockProperties;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;

/**
 * Who may see and do what. Copy it with care: the users are demo users.
 * <ul>
 * <li>The actuator endpoints (a chain of their own, for scripts and monitoring: HTTP
 * Basic, no session, so a browser's dashboard session never acts on them): {@code health}
 * is open (load balancers); the {@code redislock} endpoint and the others are read by a
 * signed-in viewer or operator, and only an operator ({@code REDISLOCK_ADMIN}) acts on
 * {@code redislock} (force-unlock, pause, purge — offered only once
 * {@code management.endpoint.redislock.access=unrestricted} opens it).</li>
 * <li>The dashboard needs a signed-in user; its actions need the role
 * {@code REDISLOCK_ADMIN} ({@code redislock.dashboard.role}) and Spring Security's CSRF
 * token, which the page sends.</li>
 * <li>The sample's demo API ({@code /sales/**}, {@code /lottery/**}) is open and, being
 * called by {@code curl}, exempt from CSRF — matched by path pattern, so no other
 * spelling of a path (an escaped letter, a context path) is exempt with it.</li>
 * </ul>
 * Demo users only — replace them with your own user store: {@code operator} (password
 * {@code sample.operator-password}, default {@code operator}) may act, {@code viewer}
 * ({@code viewer}) only looks.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class SecurityConfiguration {

	private static final String OPERATOR = "REDISLOCK_ADMIN";

	private static final String VIEWER = "VIEWER";

	@Bean
	@Order(1)
	SecurityFilterChain actuator(HttpSecurity http) throws Exception {
		http.securityMatcher(EndpointRequest.toAnyEndpoint())
			.authorizeHttpRequests((requests) -> requests.requestMatchers(EndpointRequest.to("health"))
				.permitAll()
				.requestMatchers(EndpointRequest.toAnyEndpoint().withHttpMethod(HttpMethod.GET))
				.hasAnyRole(VIEWER, OPERATOR)
				.requestMatchers(EndpointRequest.to("redislock"))
				.hasRole(OPERATOR)
				.anyRequest()
				.denyAll())
			.httpBasic(Customizer.withDefaults())
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			// No session and no cookie: nothing for a cross-site request to ride on.
			.csrf((csrf) -> csrf.disable());
		return http.build();
	}

	@Bean
	@Order(2)
	SecurityFilterChain application(HttpSecurity http, RedisLockProperties properties) throws Exception {
		String dashboard = properties.getDashboard().getPath();
		PathPatternRequestMatcher.Builder paths = PathPatternRequestMatcher.withDefaults();
		http.authorizeHttpRequests(
				(requests) -> requests.requestMatchers(paths.matcher(dashboard), paths.matcher(dashboard + "/**"))
					.authenticated()
					.anyRequest()
					.permitAll())
			.formLogin(Customizer.withDefaults())
			// CSRF protection wherever a browser session may act; the demo API, called
			// with curl, is exempt.
			.csrf((csrf) -> csrf.ignoringRequestMatchers(paths.matcher("/sales/**"), paths.matcher("/lottery/**")));
		return http.build();
	}

	@Bean
	UserDetailsService users(Environment environment) {
		return new InMemoryUserDetailsManager(User.withUsername("operator")
			.password("{noop}" + environment.getProperty("sample.operator-password", "operator"))
			.roles(OPERATOR)
			.build(), User.withUsername("viewer").password("{noop}viewer").roles(VIEWER).build());
	}

}
