package io.github.redislock.internal.queue;

import java.lang.reflect.Method;
import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

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
		ArrayNode array = json.createArrayNode();
		for (int i = 0; i < arguments.length; i++) {
			try {
				array.add(json.valueToTree(arguments[i]));
			}
			catch (JacksonException | IllegalArgumentException ex) {
				Object argument = arguments[i];
				throw new IllegalArgumentException(description + ": argument '" + parameterNames[i] + "' ("
						+ ((argument != null) ? argument.getClass().getName() : "null")
						+ ") cannot be written as JSON, so the call was not enqueued: " + ex.getMessage(), ex);
			}
		}
		return json.writeValueAsString(array);
	}

	/**
	 * Read the arguments back by the declared parameter types.
	 */
	static @Nullable Object[] read(JsonMapper json, Method method, String payload) {
		JsonNode array = json.readTree(payload);
		Type[] types = method.getGenericParameterTypes();
		if (!array.isArray() || array.size() != types.length) {
			throw new IllegalArgumentException("Payload of " + method + " is not a JSON array of " + types.length
					+ " arguments: " + abbreviate(payload));
		}
		@Nullable Object[] arguments = new Object[types.length];
		for (int i = 0; i < types.length; i++) {
			arguments[i] = json.treeToValue(array.get(i), json.constructType(types[i]));
		}
		return arguments;
	}

	private static String abbreviate(String text) {
		return (text.length() > 200) ? text.substring(0, 200) + "..." : text;
	}

}
