package io.github.redislock.internal.queue;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import io.github.redislock.internal.queue.QueuedTaskTests.Card;
import io.github.redislock.internal.queue.QueuedTaskTests.Payment;
import io.github.redislock.internal.queue.QueuedTaskTests.Transfer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
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
		String payload = TaskArguments.write(this.json, method(), "handle",
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

	@SuppressWarnings("unused")
	void pay(Payment payment, Card card, List<Payment> payments, Object anything) {
	}

	@Test
	void typeIdsAreWrittenAsReadingByTheDeclaredTypesExpects() throws Exception {
		Method pay = getClass().getDeclaredMethod("pay", Payment.class, Card.class, List.class, Object.class);
		Object[] arguments = { new Transfer("DE89"), new Card("4111"), List.of(new Card("1"), new Transfer("2")),
				new Card("5500") };
		String payload = TaskArguments.write(this.json, pay, "pay",
				new String[] { "payment", "card", "payments", "anything" }, arguments);
		assertThat(TaskArguments.read(this.json, pay, payload)).containsExactly(new Transfer("DE89"), new Card("4111"),
				List.of(new Card("1"), new Transfer("2")),
				// Declared as Object: plain JSON values, never a class the payload names.
				Map.of("kind", "card", "number", "5500"));
	}

	@Test
	void nullsRoundTrip() throws Exception {
		String payload = TaskArguments.write(this.json, method(), "handle",
				new String[] { "id", "amount", "items", "totals", "anything" },
				new Object[] { null, 0L, null, null, null });
		assertThat(TaskArguments.read(this.json, method(), payload)).containsExactly(null, 0L, null, null, null);
	}

	@Test
	void aPayloadThatIsNotAnArrayOfTheRightSizeIsAMismatch() throws Exception {
		Method method = method();
		for (String payload : List.of("{\"a\":1}", "[\"o-1\",42,[],{},null,7]", "[\"o-1\",42,[],{},null] [1]",
				"\"o-1\"")) {
			assertThatExceptionOfType(TaskArguments.PayloadMismatchException.class).as(payload)
				.isThrownBy(() -> TaskArguments.read(this.json, method, payload))
				.withMessageStartingWith("payload-mismatch: ")
				.withMessageContaining("is not a JSON array of 5 arguments");
		}
	}

	/**
	 * A payload written before the method got its last parameters (a rolling deploy):
	 * those are left out, and read as {@code null} or an empty {@code Optional}.
	 */
	@Test
	void trailingParametersThatAnOlderPayloadLacksAreNull() throws Exception {
		assertThat(TaskArguments.read(this.json, method(), "[\"o-1\",42,[]]")).containsExactly("o-1", 42L, List.of(),
				null, null);
		Method later = getClass().getDeclaredMethod("later", String.class, java.util.Optional.class, String.class);
		assertThat(TaskArguments.read(this.json, later, "[\"o-1\"]")).containsExactly("o-1", java.util.Optional.empty(),
				null);
	}

	@SuppressWarnings("unused")
	void later(String id, java.util.Optional<String> locale, String subject) {
	}

	@Test
	void aPrimitiveParameterThatThePayloadLacksOrAnArgumentThatDoesNotBindIsAMismatch() throws Exception {
		assertThatExceptionOfType(TaskArguments.PayloadMismatchException.class)
			.isThrownBy(() -> TaskArguments.read(this.json, method(), "[\"o-1\"]"))
			.withMessageContaining("parameter 2 (long)")
			.withMessageContaining("handle(java.lang.String,long,");
		assertThatExceptionOfType(TaskArguments.PayloadMismatchException.class)
			.isThrownBy(() -> TaskArguments.read(this.json, method(), "[\"o-1\",\"not a number\",[],{},null]"))
			.withMessageContaining("argument 2 of the payload does not bind to long");
	}

	@SuppressWarnings("unused")
	void loop(String id, Object loop) {
	}

	@Test
	void anArgumentThatCannotBeWrittenIsNamed() throws Exception {
		Method loop = getClass().getDeclaredMethod("loop", String.class, Object.class);
		Object unwritable = new Object() {
			@SuppressWarnings("unused")
			public Object getSelf() {
				return this;
			}
		};
		assertThatIllegalArgumentException()
			.isThrownBy(() -> TaskArguments.write(this.json, loop, "loop", new String[] { "id", "loop" },
					new Object[] { "o-1", unwritable }))
			.withMessageContaining("argument 'loop'");
	}

}
