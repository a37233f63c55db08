package io.github.redislock.internal.aop;

import java.lang.reflect.Method;
import java.util.Optional;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.ReactiveLockContext;
import io.github.redislock.internal.lock.AsyncHold;
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

	static Object invoke(AsyncLockCall call) {
		// Cancelled at the very moment the hold came: Reactor discards it, and it goes
		// back.
		Mono<Optional<AsyncHold>> hold = Mono.fromFuture(call::acquire, false)
			.doOnDiscard(AsyncHold.class, AsyncHold::release)
			.map(Optional::of)
			.defaultIfEmpty(Optional.empty());
		if (call.operation().returnKind() == ReturnKind.MONO) {
			return hold.flatMap((acquired) -> acquired.isPresent() ? mono(call, acquired.get())
					: Mono.from(notAcquired(call, Mono.empty())));
		}
		return hold.flatMapMany((acquired) -> acquired.isPresent() ? flux(call, acquired.get())
				: Flux.from(notAcquired(call, Flux.empty())));
	}

	private static Mono<@Nullable Object> mono(AsyncLockCall call, AsyncHold hold) {
		Observation observation = call.startHold();
		return Mono
			.usingWhen(Mono.just(hold), (held) -> Mono.from(body(call, held, Mono.class)),
					(held) -> release(held, observation, null), (held, failure) -> release(held, observation, failure),
					(held) -> release(held, observation, null))
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, hold));
	}

	private static Flux<@Nullable Object> flux(AsyncLockCall call, AsyncHold hold) {
		Observation observation = call.startHold();
		return Flux
			.usingWhen(Mono.just(hold), (held) -> Flux.from(body(call, held, Flux.class)),
					(held) -> release(held, observation, null), (held, failure) -> release(held, observation, failure),
					(held) -> release(held, observation, null))
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, hold));
	}

	@SuppressWarnings("unchecked")
	private static org.reactivestreams.Publisher<@Nullable Object> body(AsyncLockCall call, AsyncHold hold,
			Class<?> type) {
		Object publisher = call.proceed(hold);
		if (publisher == null) {
			return (type == Mono.class) ? Mono.empty() : Flux.empty();
		}
		return (org.reactivestreams.Publisher<@Nullable Object>) publisher;
	}

	private static Mono<@Nullable Void> release(AsyncHold hold, Observation observation, @Nullable Throwable failure) {
		if (failure != null) {
			observation.error(failure);
		}
		observation.stop();
		return Mono.fromFuture(hold::release);
	}

	@SuppressWarnings("unchecked")
	private static org.reactivestreams.Publisher<@Nullable Object> notAcquired(AsyncLockCall call,
			org.reactivestreams.Publisher<@Nullable Object> skipped) {
		Method fallback = call.operation().fallback();
		if (fallback != null) {
			Object result = call.invokeFallback(fallback);
			return (result != null) ? (org.reactivestreams.Publisher<@Nullable Object>) result : skipped;
		}
		if (call.operation().onFailure() == OnLockFailure.SKIP) {
			return skipped;
		}
		return Mono.error(call.notAcquired());
	}

}
