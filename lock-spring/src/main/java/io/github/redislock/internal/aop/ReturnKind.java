package io.github.redislock.internal.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How a lock follows an annotated method's result: held while the method runs, until the
 * {@code CompletionStage} it returns completes, or from subscription until the reactive
 * type it returns ({@code Mono}, {@code Flux}, or any other that Spring's
 * {@link ReactiveAdapterRegistry} knows) completes, fails or is cancelled.
 *
 * @param form which of these
 * @param adapter for a reactive type, its adapter to and from Reactive Streams
 */
record ReturnKind(Form form, @Nullable ReactiveAdapter adapter) {

	/** Held while the method runs. */
	static final ReturnKind SYNCHRONOUS = new ReturnKind(Form.SYNCHRONOUS, null);

	/** Held until the returned {@code CompletionStage} completes. */
	static final ReturnKind COMPLETION_STAGE = new ReturnKind(Form.COMPLETION_STAGE, null);

	/**
	 * Holds of reactive results are taken and released by Reactor's operators, so
	 * reactive types are followed only with Reactor on the class path.
	 */
	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			ReturnKind.class.getClassLoader());

	/** Named, not referenced: Reactive Streams may be absent. */
	private static final String REACTIVE_STREAMS_PUBLISHER = "org.reactivestreams.Publisher";

	enum Form {

		SYNCHRONOUS, COMPLETION_STAGE, REACTIVE

	}

	/**
	 * Return how a lock follows a method returning {@code type}, or {@code null} when it
	 * cannot (an asynchronous type it cannot wait for).
	 */
	static @Nullable ReturnKind of(Class<?> type) {
		if (CompletionStage.class.isAssignableFrom(type)) {
			// The caller gets a CompletableFuture completed after the release.
			return type.isAssignableFrom(CompletableFuture.class) ? COMPLETION_STAGE : null;
		}
		if (Future.class.isAssignableFrom(type)) {
			return null;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
		if (adapter != null) {
			return (REACTOR_PRESENT && !isBarePublisher(adapter)) ? new ReturnKind(Form.REACTIVE, adapter) : null;
		}
		return isPublisher(type) ? null : SYNCHRONOUS;
	}

	/**
	 * Whether the adapter is the registry's catch-all for any Reactive Streams (or JDK
	 * {@code Flow}) publisher: a method declaring only that says nothing of what it
	 * emits, and is refused as it always was; a concrete type ({@code Flux}) is needed.
	 */
	private static boolean isBarePublisher(ReactiveAdapter adapter) {
		Class<?> type = adapter.getReactiveType();
		return type.getName().equals(REACTIVE_STREAMS_PUBLISHER) || type == Flow.Publisher.class;
	}

	private static boolean isPublisher(Class<?> type) {
		if (type.getName().equals(REACTIVE_STREAMS_PUBLISHER) || Flow.Publisher.class.isAssignableFrom(type)) {
			return true;
		}
		for (Class<?> candidate : ClassUtils.getAllInterfacesForClassAsSet(type)) {
			if (candidate.getName().equals(REACTIVE_STREAMS_PUBLISHER)) {
				return true;
			}
		}
		return false;
	}

}
