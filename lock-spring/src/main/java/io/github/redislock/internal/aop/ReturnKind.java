package io.github.redislock.internal.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * How a lock follows an annotated method's result: held while the method runs, or until
 * the asynchronous result it returns completes.
 */
enum ReturnKind {

	/** Held while the method runs. */
	SYNCHRONOUS,

	/** Held until the returned {@code CompletionStage} completes. */
	COMPLETION_STAGE,

	/**
	 * Held from subscription until the returned {@code Mono} completes, fails or is
	 * cancelled.
	 */
	MONO,

	/**
	 * Held from subscription until the returned {@code Flux} completes, fails or is
	 * cancelled.
	 */
	FLUX;

	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			ReturnKind.class.getClassLoader());

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
		if (REACTOR_PRESENT && type.getName().equals("reactor.core.publisher.Mono")) {
			return MONO;
		}
		if (REACTOR_PRESENT && type.getName().equals("reactor.core.publisher.Flux")) {
			return FLUX;
		}
		if (isPublisher(type)) {
			return null;
		}
		return SYNCHRONOUS;
	}

	private static boolean isPublisher(Class<?> type) {
		if (type.getName().equals("org.reactivestreams.Publisher")) {
			return true;
		}
		for (Class<?> candidate : ClassUtils.getAllInterfacesForClassAsSet(type)) {
			if (candidate.getName().equals("org.reactivestreams.Publisher")) {
				return true;
			}
		}
		return false;
	}

}
