package io.github.redislock.internal.queue;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.ClassUtils;

/**
 * The logging context (SLF4J's MDC: request ids, and the trace and span ids that tracing
 * puts there) of the code that enqueues a task, stored with the task and in place while a
 * worker, on any instance, runs it. A thread's own context cannot reach another process,
 * so a {@code TaskDecorator} alone cannot carry it to a queued task.
 */
final class CallerContext {

	private static final boolean MDC_PRESENT = ClassUtils.isPresent("org.slf4j.MDC",
			CallerContext.class.getClassLoader());

	private static final TypeReference<Map<String, String>> MAP = new TypeReference<>() {
	};

	private CallerContext() {
	}

	/**
	 * Return the current thread's logging context as JSON, or {@code ""} when it has
	 * none.
	 */
	static String capture(JsonMapper json) {
		if (!MDC_PRESENT) {
			return "";
		}
		Map<String, String> mdc = MDC.getCopyOfContextMap();
		return (mdc == null || mdc.isEmpty()) ? "" : json.writeValueAsString(mdc);
	}

	/**
	 * Put a captured context in place on the current thread, until the returned scope is
	 * closed (which puts back what was there).
	 */
	static Scope restore(JsonMapper json, String captured) {
		if (!MDC_PRESENT || captured.isEmpty()) {
			return () -> {
			};
		}
		Map<String, String> context;
		try {
			context = json.readValue(captured, MAP);
		}
		catch (JacksonException ex) {
			return () -> {
			};
		}
		@Nullable Map<String, String> previous = MDC.getCopyOfContextMap();
		MDC.setContextMap(context);
		return () -> {
			if (previous != null) {
				MDC.setContextMap(previous);
			}
			else {
				MDC.clear();
			}
		};
	}

	/**
	 * A restored context, undone by {@link #close()}.
	 */
	interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
