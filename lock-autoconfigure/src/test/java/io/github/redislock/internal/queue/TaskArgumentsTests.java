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

	static class Base {

		public String id;

	}

	static class Special extends Base {

		public String extra;

	}

	static class Receipt {

		public String id;

		@com.fasterxml.jackson.annotation.JsonProperty(
				access = com.fasterxml.jackson.annotation.JsonProperty.Access.READ_ONLY)
		public String total;

	}

	record Circle(double radius) implements QueuedTaskTests.Shape {

		@Override
		public double area() {
			return Math.PI * this.radius * this.radius;
		}

	}

	record Drawing(QueuedTaskTests.Shape shape) {
	}

	@SuppressWarnings("unused")
	void keep(Base base, Receipt receipt, Drawing drawing, java.util.Set<String> tags, java.time.OffsetDateTime at,
			Payment payment, Object anything) {
	}

	private Method keep() throws NoSuchMethodException {
		return getClass().getDeclaredMethod("keep", Base.class, Receipt.class, Drawing.class, java.util.Set.class,
				java.time.OffsetDateTime.class, Payment.class, Object.class);
	}

	private static final String[] KEEP = { "base", "receipt", "drawing", "tags", "at", "payment", "anything" };

	private void enqueue(Object... arguments) throws Exception {
		boolean[] checked = TaskArguments.readBackChecked(keep());
		String payload = TaskArguments.write(this.json, keep(), "keep", KEEP, arguments);
		TaskArguments.checkReadsBack(this.json, keep(), "keep", KEEP, checked, arguments, payload);
	}

	/**
	 * What JSON reads back as it was written in shape (the same properties, the same
	 * kinds of values, as many elements) is accepted at enqueue: a set (whose order may
	 * change), a date with an offset (read back in UTC), a type with a type id, plain
	 * values.
	 */
	@Test
	void argumentsThatReadBackInTheirShapeAreAccepted() throws Exception {
		Base base = new Base();
		base.id = "b-1";
		Receipt receipt = new Receipt();
		receipt.id = "r-1";
		java.util.Set<String> tags = new java.util.HashSet<>();
		for (int i = 0; i < 50; i++) {
			tags.add("tag-" + i);
		}
		enqueue(base, receipt, new Drawing(null), tags, java.time.OffsetDateTime.parse("2026-11-26T10:15:30+02:00"),
				new Card("4111"), Map.of("k", List.of(1, 2)));
		enqueue(null, null, null, null, null, null, null);
	}

	/**
	 * What would reach the task as another value is refused at enqueue, naming the
	 * argument and where it differs: a subclass passed where its base class is declared
	 * (its own properties would be lost), a property that is written but never read, a
	 * value that cannot be read back at all.
	 */
	@Test
	void anArgumentThatDoesNotReadBackInItsShapeIsRefused() throws Exception {
		Special special = new Special();
		special.id = "s-1";
		special.extra = "kept?";
		assertThatIllegalArgumentException().isThrownBy(() -> enqueue(special, null, null, null, null, null, null))
			.withMessageContaining("keep: argument 'base' (" + Special.class.getName() + ")")
			.withMessageContaining("/extra")
			.withMessageContaining("so the call was not enqueued");
		Receipt receipt = new Receipt();
		receipt.id = "r-1";
		receipt.total = "12.50";
		assertThatIllegalArgumentException().isThrownBy(() -> enqueue(null, receipt, null, null, null, null, null))
			.withMessageContaining("argument 'receipt'")
			.withMessageContaining("/total: written as a string, read back as null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> enqueue(null, null, new Drawing(new Circle(1)), null, null, null, null))
			.withMessageContaining("argument 'drawing'")
			.withMessageContaining("cannot be read back");
	}

	@com.fasterxml.jackson.annotation.JsonFormat(shape = com.fasterxml.jackson.annotation.JsonFormat.Shape.OBJECT)
	enum Plan {

		FREE(0), PRO(10);

		private final int price;

		Plan(int price) {
			this.price = price;
		}

		public int getPrice() {
			return this.price;
		}

	}

	@SuppressWarnings("unused")
	void subscribe(Plan plan, java.util.concurrent.TimeUnit unit) {
	}

	/**
	 * An application's enum may be written in a shape it cannot be read from: it is read
	 * back at the call (the JDK's own enums are not).
	 */
	@Test
	void anApplicationsEnumIsReadBack() throws Exception {
		Method subscribe = getClass().getDeclaredMethod("subscribe", Plan.class, java.util.concurrent.TimeUnit.class);
		boolean[] checked = TaskArguments.readBackChecked(subscribe);
		assertThat(checked).containsExactly(true, false);
		String[] names = { "plan", "unit" };
		Object[] arguments = { Plan.PRO, java.util.concurrent.TimeUnit.SECONDS };
		String payload = TaskArguments.write(this.json, subscribe, "subscribe", names, arguments);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> TaskArguments.checkReadsBack(this.json, subscribe, "subscribe", names, checked, arguments,
					payload))
			.withMessageContaining("argument 'plan'")
			.withMessageContaining("cannot be read back");
	}

	/**
	 * Version tags this release does not write count as none: versions are ASCII digits
	 * from 1.
	 */
	@Test
	void versionTagsThatThisReleaseDoesNotWriteCountAsNone() {
		assertThat(TaskVersion.parse("3:abc")).isEqualTo(new TaskVersion(3, "abc"));
		for (String tag : List.of("", "abc", ":x", "0:x", "-1:x", "\u0663:x", "2147483648:x", "99999999999:x")) {
			assertThat(TaskVersion.parse(tag)).as(tag).isEqualTo(new TaskVersion(1, null));
		}
	}

	/**
	 * The check is decided per parameter at start: the JDK's value types (and collections
	 * and maps of them), whose JSON always reads back as written, are not checked.
	 */
	@Test
	void onlyParametersWhoseValuesMayNotReadBackAreChecked() throws Exception {
		assertThat(TaskArguments.readBackChecked(method())).containsExactly(false, false, true, false, true);
		assertThat(TaskArguments.readBackChecked(keep())).containsExactly(true, true, true, false, false, true, true);
	}

}
