package io.github.redislock.internal.queue;

import java.lang.reflect.Method;
import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The arguments of a {@code @QueuedTask} call as a JSON array, read back by the method's
 * declared parameter types only: a payload can never choose the class to instantiate.
 *
 * @since 0.1.0
 */
public final class TaskArguments {

	private TaskArguments() {
	}

	/**
	 * Write the arguments as a JSON array.
	 * @throws IllegalArgumentException naming the parameter that cannot be written
	 */
	public static String write(JsonMapper json, String description, String[] parameterNames,
			@Nullable Object[] arguments) {
		try {
			// One pass, each argument by its own type, as an array of them.
			return json.writeValueAsString(arguments);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			// Find the argument to name.
			for (int i = 0; i < arguments.length; i++) {
				try {
					json.writeValueAsString(arguments[i]);
				}
				catch (JacksonException | IllegalArgumentException argumentFailure) {
					Object argument = arguments[i];
					throw new IllegalArgumentException(description + ": argument '" + parameterNames[i] + "' ("
							+ ((argument != null) ? argument.getClass().getName() : "null")
							+ ") cannot be written as JSON, so the call was not enqueued: "
							+ argumentFailure.getMessage(), argumentFailure);
				}
			}
			throw new IllegalArgumentException(description
					+ ": the arguments cannot be written as JSON, so the call was not enqueued: " + ex.getMessage(),
					ex);
		}
	}

	/**
	 * Read the arguments back by the declared parameter types.
	 */
	static @Nullable Object[] read(JsonMapper json, Method method, String payload) {
		Type[] types = method.getGenericParameterTypes();
		@Nullable Object[] arguments = new Object[types.length];
		// One pass over the text, each element read as its parameter's declared type.
		// Elements follow each other in the array: not trailing tokens of a document.
		ObjectReader reader = json.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		try (JsonParser parser = json.createParser(payload)) {
			if (parser.nextToken() != JsonToken.START_ARRAY) {
				throw notAnArray(method, types.length, payload);
			}
			for (int i = 0; i < types.length; i++) {
				if (parser.nextToken() == JsonToken.END_ARRAY) {
					throw notAnArray(method, types.length, payload);
				}
				arguments[i] = reader.forType(json.constructType(types[i])).readValue(parser);
			}
			if (parser.nextToken() != JsonToken.END_ARRAY || parser.nextToken() != null) {
				throw notAnArray(method, types.length, payload);
			}
		}
		return arguments;
	}

	private static IllegalArgumentException notAnArray(Method method, int count, String payload) {
		return new IllegalArgumentException(
				"Payload of " + method + " is not a JSON array of " + count + " arguments: " + abbreviate(payload));
	}

	private static String abbreviate(String text) {
		return (text.length() > 200) ? text.substring(0, 200) + "..." : text;
	}

}
