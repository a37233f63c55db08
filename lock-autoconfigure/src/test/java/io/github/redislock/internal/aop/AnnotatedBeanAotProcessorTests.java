package io.github.redislock.internal.aop;

import java.time.LocalDate;
import java.util.List;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.QueuedTask;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring AOT run on an application context, as the build of an application runs it: the
 * hints its annotated beans need in a native image come out of it.
 */
class AnnotatedBeanAotProcessorTests {

	private RuntimeHints processAheadOfTime(Class<?>... beans) {
		GenericApplicationContext context = new GenericApplicationContext();
		for (Class<?> bean : beans) {
			context.registerBean(bean);
		}
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "Application")), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		return generation.getRuntimeHints();
	}

	@Test
	void queuedTaskMethodIsInvocableAndItsPayloadTypesBindable() {
		RuntimeHints hints = processAheadOfTime(Mailer.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Mailer.class, "send")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "lines")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Line.class)).as("a type inside the payload")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Line.class, "quantity")).accepts(hints);
	}

	@Test
	void lockedMethodItsFallbackAndItsKeyTypesAreRegistered() {
		RuntimeHints hints = processAheadOfTime(Shop.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Shop.class, "buy")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Shop.class, "soldOut")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Item.class, "sku")).as("read by the key")
			.accepts(hints);
	}

	@Test
	void beansWithoutOurAnnotationsGetNoHints() {
		RuntimeHints hints = processAheadOfTime(Plain.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Plain.class, "send")).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).rejects(hints);
	}

	@Test
	void annotationsAndScriptsOfTheStarterReachTheHintsThroughAotFactories() {
		RuntimeHints hints = processAheadOfTime();
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(QueuedTask.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/redislock/internal/lock/acquire.lua"))
			.accepts(hints);
	}

	record Line(String sku, int quantity) {
	}

	record Order(String id, LocalDate placed, List<Line> lines) {
	}

	record Item(String sku) {
	}

	static class Mailer {

		@QueuedTask(queue = "mail")
		public void send(Order order, int attempt) {
		}

	}

	static class Shop {

		@DistributedLock(name = "stock", key = "#item.sku", fallback = "soldOut")
		public String buy(Item item) {
			return "bought";
		}

		String soldOut(Item item) {
			return "sold out";
		}

	}

	static class Plain {

		public void send(Order order) {
		}

	}

}
