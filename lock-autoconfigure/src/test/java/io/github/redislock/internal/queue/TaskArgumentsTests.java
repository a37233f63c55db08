package io.github.redislock.internal.queue;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Task arguments go to JSON as an array in one pass and come back by the declared
 * parameter types only.
 */
class TaskArgumentsTests {

	private final JsonMapper json = new JsonMapper();

	record Item(String sku, int count) {
	}

	@SuppressWarnings("unused")
	void handle(String id, long amount, List<Item> items, Map<String, Integer> totals, Object anything) {
	}

	private Method method() throws NoSuchMethodException {
		return getClass().getDeclaredMethod("handle", String.class, long.class, List.class, Map.class, Object.class);
	}

	@Test
	void argumentsComeBackAsTheDeclaredTypes() throws Exception {
		Object[] arguments = { "o-1", 42L, List.of(new Item("a", 2)), Map.of("a", 2), Map.of("k", "v") };
		String payload = TaskArguments.write(this.json, "handle",
				new String[] { "id", "amount", "items", "totals", "anything" }, arguments);
		assertThat(payload).isEqualTo("[\"o-1\",42,[{\"sku\":\"a\",\"count\":2}],{\"a\":2},{\"k\":\"v\"}]");
		Object[] read = TaskArguments.read(this.json, method(), payload);
		assertThat(read[0]).isEqualTo("o-1");
		assertThat(read[1]).isEqualTo(42L);
		assertThat(read[2]).isEqualTo(List.of(new Item("a", 2)));
		assertThat(read[3]).isEqualTo(Map.of("a", 2));
		// Declared as Object: plain JSON values, never a class the payload names.
		assertThat(read[4]).isEqualTo(Map.of("k", "v"));
	}

	@Test
	void nullsRoundTrip() throws Exception {
		String payload = TaskArguments.write(this.json, "handle",
				new String[] { "id", "amount", "items", "totals", "anything" },
				new Object[] { null, 0L, null, null, null });
		assertThat(TaskArguments.read(this.json, method(), payload)).containsExactly(null, 0L, null, null, null);
	}

	@Test
	void aPayloadThatIsNotAnArrayOfTheRightSizeIsRefused() throws Exception {
		Method method = method();
		for (String payload : List.of("{\"a\":1}", "[\"o-1\",42,[],{}]", "[\"o-1\",42,[],{},null,7]",
				"[\"o-1\",42,[],{},null] [1]", "\"o-1\"")) {
			assertThatIllegalArgumentException().as(payload)
				.isThrownBy(() -> TaskArguments.read(this.json, method, payload))
				.withMessageContaining("is not a JSON array of 5 arguments");
		}
	}

	@Test
	void anArgumentThatCannotBeWrittenIsNamed() {
		Object unwritable = new Object() {
			@SuppressWarnings("unused")
			public Object getSelf() {
				return this;
			}
		};
		assertThatIllegalArgumentException()
			.isThrownBy(() -> TaskArguments.write(this.json, "handle", new String[] { "id", "loop" },
					new Object[] { "o-1", unwritable }))
			.withMessageContaining("argument 'loop'");
	}

}
