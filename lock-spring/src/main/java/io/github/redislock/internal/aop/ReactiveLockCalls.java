package io.github.redislock.internal.aop;

import java.lang.reflect.Method;
import java.util.Optional;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.ReactiveLockContext;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Annotated methods returning Reactor's {@code Mono} or {@code Flux}: the lock is taken
 * on subscription (without blocking a thread) and released when the publisher completes,
 * fails or is cancelled; cancelling while waiting gives up. Loaded only when Reactor is
 * on the class path.
 */
final class ReactiveLockCalls {

	private ReactiveLockCalls() {
	}

	static Object invoke(LockCall call) {
		// Cancelled at the very moment the hold came: Reactor discards it, and it goes
		// back.
		Mono<Optional<LockHandle>> hold = Mono.fromFuture(call::acquire, false)
			.doOnDiscard(Optional.class, ReactiveLockCalls::releaseDiscarded);
		if (call.operation().returnKind() == ReturnKind.MONO) {
			return hold.flatMap((acquired) -> acquired.isPresent() ? mono(call, acquired.get())
					: Mono.from(notAcquired(call, Mono.empty())));
		}
		return hold.flatMapMany((acquired) -> acquired.isPresent() ? flux(call, acquired.get())
				: Flux.from(notAcquired(call, Flux.empty())));
	}

	private static void releaseDiscarded(Optional<?> discarded) {
		discarded.ifPresent((handle) -> ((LockHandle) handle).releaseAsync());
	}

	private static Mono<@Nullable Object> mono(LockCall call, LockHandle handle) {
		Observation observation = call.startHold();
		return Mono
			.usingWhen(Mono.just(handle), (held) -> Mono.from(body(call, held, Mono.class)),
					(held) -> release(held, observation, null), (held, failure) -> release(held, observation, failure),
					(held) -> release(held, observation, null))
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, handle));
	}

	private static Flux<@Nullable Object> flux(LockCall call, LockHandle handle) {
		Observation observation = call.startHold();
		return Flux
			.usingWhen(Mono.just(handle), (held) -> Flux.from(body(call, held, Flux.class)),
					(held) -> release(held, observation, null), (held, failure) -> release(held, observation, failure),
					(held) -> release(held, observation, null))
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, handle));
	}

	@SuppressWarnings("unchecked")
	private static org.reactivestreams.Publisher<@Nullable Object> body(LockCall call, LockHandle handle,
			Class<?> type) {
		Object publisher = call.proceed(handle);
		if (publisher == null) {
			return (type == Mono.class) ? Mono.empty() : Flux.empty();
		}
		return (org.reactivestreams.Publisher<@Nullable Object>) publisher;
	}

	private static Mono<@Nullable Void> release(LockHandle handle, Observation observation,
			@Nullable Throwable failure) {
		if (failure != null) {
			observation.error(failure);
		}
		observation.stop();
		return Mono.fromFuture(handle::releaseAsync);
	}

	@SuppressWarnings("unchecked")
	private static org.reactivestreams.Publisher<@Nullable Object> notAcquired(LockCall call,
			org.reactivestreams.Publisher<@Nullable Object> skipped) {
		Method fallback = call.operation().fallback();
		if (fallback != null) {
			Object result = call.invokeFallback(fallback);
			return (result != null) ? (org.reactivestreams.Publisher<@Nullable Object>) result : skipped;
		}
		if (call.operation().onFailure() == OnLockFailure.SKIP) {
			return skipped;
		}
		return Mono.error(call.notAcquiredException());
	}

}
