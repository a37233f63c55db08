package io.github.redislock.internal.queue;

import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The arguments of a {@code @QueuedTask} call as a JSON array, written and read back by
 * the method's declared parameter types only: a payload can never choose a class the
 * declared type does not allow.
 *
 * @since 0.1.0
 */
public final class TaskArguments {

	private TaskArguments() {
	}

	/**
	 * Write the arguments as a JSON array, each as its declared parameter type, in one
	 * pass: what {@link #read} reads back, type ids included where a declared type (or
	 * the class it names) asks for them.
	 * @param json the mapper
	 * @param method the method whose declared parameter types the arguments are written
	 * as
	 * @param description the method, for messages
	 * @param parameterNames the method's parameter names, for messages
	 * @param arguments the arguments, one per parameter
	 * @return the JSON array
	 * @throws IllegalArgumentException naming the parameter that cannot be written
	 */
	public static String write(JsonMapper json, Method method, String description, String[] parameterNames,
			@Nullable Object[] arguments) {
		Type[] types = method.getGenericParameterTypes();
		if (types.length != arguments.length) {
			throw new IllegalArgumentException(description + ": " + arguments.length + " arguments for " + types.length
					+ " parameters, so the call was not enqueued");
		}
		StringWriter text = new StringWriter();
		try (JsonGenerator generator = json.createGenerator(text)) {
			generator.writeStartArray();
			for (int i = 0; i < types.length; i++) {
				// By the declared type, as read() reads it: written by its runtime
				// class, an argument whose type carries @JsonTypeInfo would lack the
				// type id that reading by the declared type expects.
				try {
					json.writerFor(json.constructType(types[i])).writeValue(generator, arguments[i]);
				}
				catch (JacksonException | IllegalArgumentException ex) {
					Object argument = arguments[i];
					throw new IllegalArgumentException(
							description + ": argument '" + parameterNames[i] + "' ("
									+ ((argument != null) ? argument.getClass().getName() : "null")
									+ ") cannot be written as JSON, so the call was not enqueued: " + ex.getMessage(),
							ex);
				}
			}
			generator.writeEndArray();
		}
		return text.toString();
	}

	/**
	 * The JDK's value types (the JDK's own classes only): their JSON reads back in the
	 * shape it was written (the same value, maybe in another form: a date with an offset
	 * comes back in UTC).
	 */
	private static final List<Class<?>> VALUES = List.of(CharSequence.class, Number.class, Boolean.class,
			Character.class, Enum.class, java.util.UUID.class, java.time.temporal.TemporalAccessor.class,
			java.time.temporal.TemporalAmount.class, java.time.ZoneId.class, java.util.Locale.class,
			java.util.Currency.class, java.net.URI.class, java.net.URL.class, byte[].class);

	/**
	 * Decide, per parameter of a {@code @QueuedTask} method, whether its arguments are
	 * read back at enqueue ({@link #checkReadsBack}): all but the JDK's own value types
	 * (strings, numbers, dates and times, UUIDs, …; an application's enum is checked) and
	 * collections, maps and {@code Optional}s of them, whose JSON reads back in the shape
	 * it was written.
	 * @param method the method
	 * @return per parameter whether to check it
	 */
	public static boolean[] readBackChecked(Method method) {
		Type[] types = method.getGenericParameterTypes();
		boolean[] checked = new boolean[types.length];
		for (int i = 0; i < types.length; i++) {
			checked[i] = !isValue(types[i]);
		}
		return checked;
	}

	private static boolean isValue(Type type) {
		if (type instanceof Class<?> type_) {
			Class<?> plain = org.springframework.util.ClassUtils.resolvePrimitiveIfNecessary(type_);
			// The JDK's own: an application's enum or number may be written in a shape it
			// cannot be read from (@JsonFormat(shape = OBJECT), say).
			if (!plain.getName().startsWith("java.") && plain != byte[].class) {
				return false;
			}
			return VALUES.stream().anyMatch((value) -> value.isAssignableFrom(plain));
		}
		if (type instanceof java.lang.reflect.ParameterizedType parameterized
				&& parameterized.getRawType() instanceof Class<?> raw
				&& (java.util.Collection.class.isAssignableFrom(raw) || java.util.Map.class.isAssignableFrom(raw)
						|| raw == Optional.class)) {
			for (Type argument : parameterized.getActualTypeArguments()) {
				if (!isValue(argument)) {
					return false;
				}
			}
			return true;
		}
		return false;
	}

	/**
	 * Check that the arguments of the parameters {@code checked} read back from the
	 * payload in their shape: written by their classes, the value read back has the same
	 * properties, the same kinds of values (string, number, boolean, null, object, array)
	 * and as many elements (in any order: a set's may change) as the argument. What does
	 * not would reach the task as another value: a subclass passed where its base class
	 * is declared, a property that is written and never read, a value that cannot be read
	 * back at all.
	 * @param json the mapper
	 * @param method the method
	 * @param description the method, for messages
	 * @param parameterNames the method's parameter names, for messages
	 * @param checked per parameter whether to check it ({@link #readBackChecked})
	 * @param arguments the arguments
	 * @param payload what {@link #write} wrote for them
	 * @throws IllegalArgumentException naming the argument and where it differs
	 */
	public static void checkReadsBack(JsonMapper json, Method method, String description, String[] parameterNames,
			boolean[] checked, @Nullable Object[] arguments, String payload) {
		boolean any = false;
		for (int i = 0; i < checked.length; i++) {
			any |= checked[i] && arguments[i] != null;
		}
		if (!any) {
			return;
		}
		Type[] types = method.getGenericParameterTypes();
		tools.jackson.databind.JsonNode written = json.readTree(payload);
		for (int i = 0; i < checked.length; i++) {
			Object argument = arguments[i];
			if (!checked[i] || argument == null) {
				continue;
			}
			Object readBack;
			try {
				readBack = json.readerFor(json.constructType(types[i])).readValue(written.get(i));
			}
			catch (JacksonException ex) {
				throw new IllegalArgumentException(description + ": argument '" + parameterNames[i] + "' ("
						+ argument.getClass().getName() + ") cannot be read back from the JSON it is written as, so"
						+ " the call was not enqueued: " + ex.getOriginalMessage(), ex);
			}
			String difference = shapeDifference(json.valueToTree(argument), json.valueToTree(readBack), "");
			if (difference != null) {
				throw new IllegalArgumentException(description + ": argument '" + parameterNames[i] + "' ("
						+ argument.getClass().getName() + ") does not read back from JSON as it was written (at "
						+ difference + "): the task would run with another value, so the call was not enqueued;"
						+ " declare the parameter as the class of its values, and give that class what Jackson needs"
						+ " to read every property it writes");
			}
		}
	}

	/**
	 * Return where two JSON values differ in shape, as {@code "/path: written as X,
	 * read back as Y"}, or {@code null} when they do not.
	 */
	private static @Nullable String shapeDifference(tools.jackson.databind.JsonNode written,
			tools.jackson.databind.JsonNode readBack, String path) {
		String writtenKind = kind(written);
		String readKind = kind(readBack);
		if (!writtenKind.equals(readKind)) {
			return ((path.isEmpty()) ? "/" : path) + ": written as " + writtenKind + ", read back as " + readKind;
		}
		if (written.isObject()) {
			java.util.Set<String> names = new java.util.TreeSet<>(written.propertyNames());
			names.addAll(readBack.propertyNames());
			for (String name : names) {
				tools.jackson.databind.JsonNode first = written.get(name);
				tools.jackson.databind.JsonNode second = readBack.get(name);
				if (first == null || second == null) {
					return path + "/" + name + ": "
							+ ((first == null) ? "not written, read back" : "written, not read back");
				}
				String difference = shapeDifference(first, second, path + "/" + name);
				if (difference != null) {
					return difference;
				}
			}
		}
		else if (written.isArray()) {
			if (written.size() != readBack.size()) {
				return ((path.isEmpty()) ? "/" : path) + ": " + written.size() + " element(s) written, "
						+ readBack.size() + " read back";
			}
			// In any order: a set's elements may come back in another.
			List<String> first = new java.util.ArrayList<>();
			List<String> second = new java.util.ArrayList<>();
			for (int i = 0; i < written.size(); i++) {
				first.add(signature(written.get(i)));
				second.add(signature(readBack.get(i)));
			}
			java.util.Collections.sort(first);
			java.util.Collections.sort(second);
			if (!first.equals(second)) {
				for (int i = 0; i < written.size(); i++) {
					String difference = shapeDifference(written.get(i), readBack.get(i), path + "/" + i);
					if (difference != null) {
						return difference;
					}
				}
				return ((path.isEmpty()) ? "/" : path) + ": its elements differ in shape";
			}
		}
		return null;
	}

	private static String kind(tools.jackson.databind.JsonNode node) {
		if (node.isObject()) {
			return "an object";
		}
		if (node.isArray()) {
			return "an array";
		}
		if (node.isNumber()) {
			return "a number";
		}
		if (node.isBoolean()) {
			return "a boolean";
		}
		if (node.isNull() || node.isMissingNode()) {
			return "null";
		}
		// Strings, and what JSON writes as strings (binary).
		return "a string";
	}

	/**
	 * The shape of a JSON value as text: kinds, property names and elements (sorted).
	 */
	private static String signature(tools.jackson.databind.JsonNode node) {
		if (node.isObject()) {
			java.util.Map<String, String> properties = new java.util.TreeMap<>();
			for (String name : node.propertyNames()) {
				properties.put(name, signature(node.get(name)));
			}
			return properties.toString();
		}
		if (node.isArray()) {
			List<String> elements = new java.util.ArrayList<>();
			for (tools.jackson.databind.JsonNode element : node) {
				elements.add(signature(element));
			}
			java.util.Collections.sort(elements);
			return elements.toString();
		}
		return kind(node);
	}

	/**
	 * Types that are never a task's argument: resources and handles that exist only in
	 * this process (streams, channels, connections, threads), and classes, which a
	 * payload must never name.
	 */
	private static final List<Class<?>> NEVER = List.of(AutoCloseable.class, Thread.class, ThreadGroup.class,
			Class.class, ClassLoader.class, java.util.concurrent.Future.class, java.util.concurrent.Executor.class);

	/** JSON texts of every shape, to find out whether a type can be read at all. */
	private static final List<String> PROBES = List.of("{}", "[]", "\"x\"", "0", "true");

	/**
	 * Return why a {@code @QueuedTask} method's parameters cannot carry a task's
	 * arguments (written as JSON here, read back in another process later), or
	 * {@code null} when they can: a parameter of a type that is a resource or a handle
	 * ({@link AutoCloseable} streams and connections, threads, futures, executors) or a
	 * {@link Class}, or one that JSON cannot be read back as at all (an interface or an
	 * abstract class with no way to choose its implementation).
	 */
	public static @Nullable String unreadable(JsonMapper json, Method method) {
		Type[] types = method.getGenericParameterTypes();
		Class<?>[] classes = method.getParameterTypes();
		java.lang.reflect.Parameter[] parameters = method.getParameters();
		for (int i = 0; i < types.length; i++) {
			String parameter = "parameter '" + parameters[i].getName() + "' (" + types[i].getTypeName() + ")";
			for (Class<?> never : NEVER) {
				if (never.isAssignableFrom(classes[i])) {
					return parameter + " is a " + never.getSimpleName()
							+ ": it exists only in this process and cannot be written down as JSON for another to"
							+ " read back";
				}
			}
			String reason = unreadableType(json, json.constructType(types[i]));
			if (reason != null) {
				return parameter + " cannot be read back from JSON: " + reason;
			}
		}
		return null;
	}

	private static @Nullable String unreadableType(JsonMapper json, JavaType type) {
		ObjectReader reader = json.readerFor(type);
		String reason = null;
		for (String probe : PROBES) {
			try {
				reader.readValue(probe);
				return null;
			}
			catch (InvalidDefinitionException ex) {
				reason = ex.getOriginalMessage();
			}
			catch (JacksonException ex) {
				// Readable, from other JSON.
				return null;
			}
		}
		return reason;
	}

	/**
	 * Read the arguments back by the declared parameter types. A payload written for an
	 * earlier version of the method that lacked its last parameters (a rolling deploy
	 * that added them) leaves those {@code null} ({@code Optional.empty()} for an
	 * {@code Optional}); a missing primitive parameter, an extra argument, or an argument
	 * that does not bind to its parameter's type is a mismatch that no retry can mend.
	 * @throws PayloadMismatchException when the payload does not fit the method
	 */
	static @Nullable Object[] read(JsonMapper json, Method method, String payload) {
		Type[] types = method.getGenericParameterTypes();
		Class<?>[] classes = method.getParameterTypes();
		@Nullable Object[] arguments = new Object[types.length];
		// One pass over the text, each element read as its parameter's declared type.
		// Elements follow each other in the array: not trailing tokens of a document.
		ObjectReader reader = json.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		try (JsonParser parser = json.createParser(payload)) {
			if (parser.nextToken() != JsonToken.START_ARRAY) {
				throw notAnArray(method, types.length, payload, true);
			}
			int read = 0;
			for (; read < types.length; read++) {
				if (parser.nextToken() == JsonToken.END_ARRAY) {
					break;
				}
				try {
					arguments[read] = reader.forType(json.constructType(types[read])).readValue(parser);
				}
				catch (DatabindException ex) {
					throw new PayloadMismatchException("argument " + (read + 1) + " of the payload does not bind to "
							+ types[read].getTypeName() + " of " + method.toGenericString() + ": "
							+ ex.getOriginalMessage() + "; payload " + abbreviate(payload), ex);
				}
			}
			if (read == types.length && (parser.nextToken() != JsonToken.END_ARRAY || parser.nextToken() != null)) {
				throw notAnArray(method, types.length, payload, false);
			}
			if (read < types.length && parser.nextToken() != null) {
				throw notAnArray(method, types.length, payload, false);
			}
			for (int i = read; i < types.length; i++) {
				if (classes[i].isPrimitive()) {
					throw new PayloadMismatchException("the payload has " + read + " argument(s), and parameter "
							+ (i + 1) + " (" + classes[i].getName() + ") of " + method.toGenericString()
							+ " cannot be left out (a primitive); payload " + abbreviate(payload), null);
				}
				arguments[i] = (classes[i] == Optional.class) ? Optional.empty() : null;
			}
		}
		catch (JacksonException ex) {
			if (ex instanceof DatabindException) {
				throw ex;
			}
			throw new PayloadMismatchException(
					"the payload of " + method.toGenericString() + " is not JSON: " + abbreviate(payload), ex, true);
		}
		return arguments;
	}

	private static PayloadMismatchException notAnArray(Method method, int count, String payload, boolean permanent) {
		return new PayloadMismatchException("Payload of " + method + " is not a JSON array of " + count
				+ " arguments (or fewer, the last ones left out): " + abbreviate(payload), null, permanent);
	}

	/**
	 * A payload that does not fit its method (its signature changed, say): retrying
	 * cannot help, so the task goes to the dead letters at once, with reason
	 * {@value #REASON}.
	 */
	static final class PayloadMismatchException extends IllegalArgumentException {

		static final String REASON = "payload-mismatch";

		private final boolean permanent;

		PayloadMismatchException(String message, @Nullable Throwable cause) {
			this(message, cause, false);
		}

		PayloadMismatchException(String message, @Nullable Throwable cause, boolean permanent) {
			super(REASON + ": " + message, cause);
			this.permanent = permanent;
		}

		/**
		 * Whether no version of the method can read the payload (it is not a JSON array):
		 * then it goes to the dead letters at once. Any other mismatch (an argument more,
		 * one that does not bind, a missing primitive) may be a payload of another
		 * version of the method, which another instance runs during a rolling deploy: it
		 * is retried as any failure is.
		 */
		boolean isPermanent() {
			return this.permanent;
		}

	}

	private static String abbreviate(String text) {
		return (text.length() > 200) ? text.substring(0, 200) + "..." : text;
	}

}
