package io.github.redislock.actuate.endpoint;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAdminAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockEndpointAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointHttpMethod;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redislock} endpoint's web operations, as Spring Boot's web layer calls them,
 * while Redis is down: each answers 503 with a message (not a 500), and 200 again once
 * Redis is back.
 */
@ExtendWith(RedisExtension.class)
class RedisLockEndpointOutageTests {

	private final RedisServers servers;

	private final String queue = "endpoint-outage-" + UUID.randomUUID();

	RedisLockEndpointOutageTests(RedisServers servers) {
		this.servers = servers;
	}

	@Test
	void everyOperationAnswers503WithAMessageWhileRedisIsDownAnd200OnceItIsBack() {
		LocalRedisServer redis = this.servers.start();
		new WebApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class))
			.withConfiguration(AutoConfigurations.of(
					org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class,
					org.springframework.boot.autoconfigure.aop.AopAutoConfiguration.class,
					io.github.redislock.autoconfigure.RedisLockAutoConfiguration.class,
					RedisTaskQueueAutoConfiguration.class, RedisLockAdminAutoConfiguration.class,
					RedisLockEndpointAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s", "redislock.queue.workers=0",
					"management.endpoints.web.exposure.include=redislock",
					"management.endpoint.redislock.access=UNRESTRICTED", "test.queue=" + this.queue)
			.withBean(Mailer.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(status(invoke(context, WebEndpointHttpMethod.GET, "redislock", Map.of()))).isEqualTo(200);
				redis.kill();
				assertUnavailable(invoke(context, WebEndpointHttpMethod.GET, "redislock", Map.of()));
				assertUnavailable(invoke(context, WebEndpointHttpMethod.GET, "redislock/{section}/{name}",
						Map.of("section", "queues", "name", this.queue)));
				assertUnavailable(invoke(context, WebEndpointHttpMethod.GET, "redislock/{section}/{name}",
						Map.of("section", "locks", "name", "report:1")));
				assertUnavailable(invoke(context, WebEndpointHttpMethod.POST, "redislock/{section}/{name}",
						Map.of("section", "queues", "name", this.queue, "action", "pause")));
				assertUnavailable(
						invoke(context, WebEndpointHttpMethod.DELETE, "redislock/{name}", Map.of("name", "report:1")));
				this.servers.restart(redis);
				await().atMost(Duration.ofSeconds(30))
					.untilAsserted(
							() -> assertThat(status(invoke(context, WebEndpointHttpMethod.GET, "redislock", Map.of())))
								.isEqualTo(200));
				assertThat(status(invoke(context, WebEndpointHttpMethod.GET, "redislock/{section}/{name}",
						Map.of("section", "queues", "name", this.queue))))
					.isEqualTo(200);
			});
	}

	/**
	 * Over HTTP the extension's operations replace the endpoint's: each operation of the
	 * endpoint needs its counterpart there, or it would answer 500 during an outage (a
	 * new one) or lose what changed (a changed one).
	 */
	@Test
	void theWebExtensionHasACounterpartOfEveryOperationOfTheEndpoint() {
		List<String> operations = operations(RedisLockEndpoint.class);
		assertThat(operations).hasSize(5);
		assertThat(operations(RedisLockEndpointWebExtension.class)).containsExactlyInAnyOrderElementsOf(operations);
	}

	private static List<String> operations(Class<?> type) {
		return Arrays.stream(type.getDeclaredMethods())
			.filter((method) -> method.isAnnotationPresent(ReadOperation.class)
					|| method.isAnnotationPresent(WriteOperation.class)
					|| method.isAnnotationPresent(DeleteOperation.class))
			.map((method) -> method.getName() + Arrays.toString(method.getParameters()))
			.toList();
	}

	private static void assertUnavailable(Object result) {
		assertThat(result).isInstanceOf(WebEndpointResponse.class);
		WebEndpointResponse<?> response = (WebEndpointResponse<?>) result;
		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getBody()).isInstanceOf(Map.class);
		assertThat(String.valueOf(((Map<?, ?>) response.getBody()).get("message"))).contains("Redis");
	}

	private static int status(Object result) {
		return (result instanceof WebEndpointResponse<?> response) ? response.getStatus() : 200;
	}

	/**
	 * Call a web operation of the endpoint as Spring Boot's web layer does; what it
	 * throws, the web layer answers with 500 (or 400 for an invalid request).
	 */
	private static Object invoke(ApplicationContext context, WebEndpointHttpMethod method, String path,
			Map<String, Object> arguments) {
		ExposableWebEndpoint endpoint = context.getBean(WebEndpointDiscoverer.class)
			.getEndpoints()
			.stream()
			.filter((candidate) -> candidate.getEndpointId().equals(EndpointId.of("redislock")))
			.findFirst()
			.orElseThrow();
		WebOperation operation = endpoint.getOperations()
			.stream()
			.filter((candidate) -> candidate.getRequestPredicate().getHttpMethod() == method
					&& candidate.getRequestPredicate().getPath().equals(path))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No " + method + " " + path + " in " + endpoint.getOperations()));
		return operation.invoke(new InvocationContext(SecurityContext.NONE, new HashMap<>(arguments)));
	}

	static class Mailer {

		@QueuedTask(queue = "${test.queue}")
		public void send(String address) {
		}

	}

}
