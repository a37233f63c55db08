package io.github.redislock.internal.queue;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.ClassUtils;

/**
 * The context of the code that enqueues a task, stored with the task and in place while a
 * worker, on any instance, runs it: its logging context (SLF4J's MDC: request ids, and
 * the trace and span ids that tracing puts there) and its trace (the headers tracing
 * writes when the enqueue is observed). A thread's own context cannot reach another
 * process, so a {@code TaskDecorator} alone cannot carry it to a queued task.
 */
final class CallerContext {

	private static final boolean MDC_PRESENT = ClassUtils.isPresent("org.slf4j.MDC",
			CallerContext.class.getClassLoader());

	private static final TypeReference<Map<String, Map<String, String>>> STORED = new TypeReference<>() {
	};

	private static final String MDC_FIELD = "mdc";

	private static final String TRACE_FIELD = "trace";

	private CallerContext() {
	}

	/**
	 * Return the current thread's logging context and the given trace headers as JSON, or
	 * {@code ""} when there are neither.
	 */
	static String capture(JsonMapper json, Map<String, String> traceHeaders) {
		Map<String, String> mdc = MDC_PRESENT ? MDC.getCopyOfContextMap() : null;
		boolean hasMdc = mdc != null && !mdc.isEmpty();
		if (!hasMdc && traceHeaders.isEmpty()) {
			return "";
		}
		Map<String, Map<String, String>> stored = new LinkedHashMap<>();
		if (hasMdc) {
			stored.put(MDC_FIELD, mdc);
		}
		if (!traceHeaders.isEmpty()) {
			stored.put(TRACE_FIELD, traceHeaders);
		}
		return json.writeValueAsString(stored);
	}

	/**
	 * Return the trace headers of a captured context (empty when it has none).
	 */
	static Map<String, String> traceHeaders(JsonMapper json, String captured) {
		return read(json, captured).getOrDefault(TRACE_FIELD, Map.of());
	}

	/**
	 * Put a captured logging context in place on the current thread, until the returned
	 * scope is closed (which puts back what was there).
	 */
	static Scope restore(JsonMapper json, String captured) {
		Map<String, String> context = read(json, captured).get(MDC_FIELD);
		if (!MDC_PRESENT || context == null) {
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

	private static Map<String, Map<String, String>> read(JsonMapper json, String captured) {
		if (captured.isEmpty()) {
			return Map.of();
		}
		try {
			return json.readValue(captured, STORED);
		}
		catch (JacksonException ex) {
			return Map.of();
		}
	}

	/**
	 * A restored context, undone by {@link #close()}.
	 */
	interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
