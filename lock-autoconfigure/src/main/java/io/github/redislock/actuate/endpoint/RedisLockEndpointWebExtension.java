package io.github.redislock.actuate.endpoint;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessResourceException;

/**
 * The HTTP side of the {@link RedisLockEndpoint}: the same operations, answered with
 * {@code 503 Service Unavailable} and a message while Redis cannot be reached (a
 * connection that fails or a command that times out), instead of a 500. Every operation
 * of the endpoint has its counterpart here (a web extension's operations replace the
 * endpoint's over HTTP).
 *
 * @since 0.1.0
 */
@EndpointWebExtension(endpoint = RedisLockEndpoint.class)
public class RedisLockEndpointWebExtension {

	private final RedisLockEndpoint endpoint;

	/**
	 * Create the extension.
	 * @param endpoint the endpoint it answers for
	 */
	public RedisLockEndpointWebExtension(RedisLockEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * See {@link RedisLockEndpoint#describe}.
	 * @return the answer
	 */
	@ReadOperation
	public WebEndpointResponse<Object> describe() {
		return answer(this.endpoint::describe);
	}

	/**
	 * See {@link RedisLockEndpoint#show}.
	 * @param section {@code queues} or {@code locks}
	 * @param name the queue or the lock
	 * @param dead how many dead letters to show
	 * @param upcoming how many delayed tasks to show
	 * @return the answer
	 */
	@ReadOperation
	public WebEndpointResponse<Object> show(@Selector String section, @Selector String name, @Nullable Integer dead,
			@Nullable Integer upcoming) {
		return answer(() -> this.endpoint.show(section, name, dead, upcoming));
	}

	/**
	 * See {@link RedisLockEndpoint#task}.
	 * @param section {@code queues}
	 * @param name the queue
	 * @param kind {@code dead-letter} or {@code task}
	 * @param id the task id
	 * @return the answer (404 when there is no such task)
	 */
	@ReadOperation
	public WebEndpointResponse<Object> task(@Selector String section, @Selector String name, @Selector String kind,
			String id) {
		return answer(() -> this.endpoint.task(section, name, kind, id));
	}

	/**
	 * See {@link RedisLockEndpoint#act}.
	 * @param section {@code queues}
	 * @param name the queue
	 * @param action what to do
	 * @param id the task, for {@code requeue} and {@code cancel}
	 * @return the answer
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String section, @Selector String name, String action,
			@Nullable String id) {
		return answer(() -> this.endpoint.act(section, name, action, id));
	}

	/**
	 * See {@link RedisLockEndpoint#forceUnlock}.
	 * @param name the full lock name
	 * @return the answer
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> forceUnlock(@Selector String name) {
		return answer(() -> this.endpoint.forceUnlock(name));
	}

	@SuppressWarnings("unchecked")
	private static WebEndpointResponse<Object> answer(Supplier<@Nullable Object> operation) {
		try {
			Object answer = operation.get();
			if (answer instanceof WebEndpointResponse<?> response) {
				// The endpoint's own answer with a status (a 400 with its message).
				return (WebEndpointResponse<Object>) response;
			}
			if (answer == null) {
				return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
			}
			return new WebEndpointResponse<>(answer);
		}
		catch (RuntimeException ex) {
			Throwable outage = outage(ex);
			if (outage == null) {
				throw ex;
			}
			Map<String, Object> body = new LinkedHashMap<>();
			body.put("status", WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
			body.put("error", "Service Unavailable");
			body.put("message", "Redis cannot be reached (" + outage.getClass().getSimpleName() + ": "
					+ outage.getMessage() + "); try again once it is back (see /actuator/health/redislock)");
			return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		}
	}

	/**
	 * Return the failure that says Redis cannot be reached (a connection that fails, a
	 * command that timed out), or {@code null} when the failure is another.
	 */
	private static @Nullable Throwable outage(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof DataAccessResourceFailureException || cause instanceof QueryTimeoutException
					|| cause instanceof TransientDataAccessResourceException) {
				return cause;
			}
		}
		return null;
	}

}
