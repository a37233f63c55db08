package io.github.redislock.internal.aop;

import java.lang.reflect.Method;
import java.util.Optional;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.ReactiveLockContext;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ReactiveAdapter;

/**
 * Annotated methods returning a reactive type ({@code Mono}, {@code Flux}, or another
 * that Spring's {@code ReactiveAdapterRegistry} adapts): the lock is taken on
 * subscription (without blocking a thread) and released when the publisher completes,
 * fails or is cancelled; cancelling while waiting gives up. Other types go through
 * Reactor by their adapter, single-valued ones as a {@code Mono}, the others as a
 * {@code Flux}. Loaded only when Reactor is on the class path.
 */
final class ReactiveLockCalls {

	private ReactiveLockCalls() {
	}

	static Object invoke(LockCall call) {
		ReactiveAdapter adapter = call.operation().returnKind().adapter();
		if (adapter == null) {
			throw new IllegalStateException(call.operation().description() + " does not return a reactive type");
		}
		// Cancelled at the very moment the hold came: Reactor discards it, and it goes
		// back.
		Mono<Optional<LockHandle>> acquisition = Mono.fromFuture(call::acquire, false)
			.doOnDiscard(Optional.class, ReactiveLockCalls::releaseDiscarded);
		if (!adapter.isMultiValue()) {
			return adapter.fromPublisher(acquisition.flatMap((handle) -> handle.isPresent()
					? mono(call, handle.get(), adapter) : Mono.from(notAcquired(call, adapter))));
		}
		return adapter.fromPublisher(acquisition.flatMapMany((handle) -> handle.isPresent()
				? flux(call, handle.get(), adapter) : Flux.from(notAcquired(call, adapter))));
	}

	private static void releaseDiscarded(Optional<?> discarded) {
		discarded.ifPresent((handle) -> ((LockHandle) handle).releaseAsync());
	}

	private static Mono<@Nullable Object> mono(LockCall call, LockHandle handle, ReactiveAdapter adapter) {
		Observation observation = call.startHold();
		return Mono
			.usingWhen(Mono.just(handle), (held) -> Mono.from(body(call, held, adapter)),
					(held) -> release(held, observation, null), (held, failure) -> release(held, observation, failure),
					(held) -> release(held, observation, null))
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, handle));
	}

	private static Flux<@Nullable Object> flux(LockCall call, LockHandle handle, ReactiveAdapter adapter) {
		Observation observation = call.startHold();
		return Flux
			.usingWhen(Mono.just(handle), (held) -> Flux.from(body(call, held, adapter)),
					(held) -> release(held, observation, null), (held, failure) -> release(held, observation, failure),
					(held) -> release(held, observation, null))
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, handle));
	}

	private static Publisher<@Nullable Object> body(LockCall call, LockHandle handle, ReactiveAdapter adapter) {
		return publisher(call.proceed(handle), adapter);
	}

	private static Mono<@Nullable Void> release(LockHandle handle, Observation observation,
			@Nullable Throwable failure) {
		if (failure != null) {
			observation.error(failure);
		}
		observation.stop();
		return Mono.fromFuture(handle::releaseAsync);
	}

	private static Publisher<@Nullable Object> notAcquired(LockCall call, ReactiveAdapter adapter) {
		Method fallback = call.operation().fallback();
		if (fallback != null) {
			return publisher(call.invokeFallback(fallback), adapter);
		}
		if (call.operation().onFailure() == OnLockFailure.SKIP) {
			return Mono.empty();
		}
		return Mono.error(call.notAcquiredException());
	}

	/**
	 * Return a method's reactive result as a Reactive Streams publisher; {@code null}
	 * completes empty.
	 */
	private static Publisher<@Nullable Object> publisher(@Nullable Object result, ReactiveAdapter adapter) {
		return (result != null) ? adapter.toPublisher(result) : Mono.empty();
	}

}
