package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

import io.github.redislock.core.ReactiveLockContext;
import io.github.redislock.core.ReactiveRedisLockTemplate;
import io.github.redislock.core.RedisLock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link ReactiveRedisLockTemplate} over a {@link DefaultRedisLockTemplate}'s
 * asynchronous holds.
 *
 * @since 0.1.0
 */
public final class DefaultReactiveRedisLockTemplate implements ReactiveRedisLockTemplate {

	private final DefaultRedisLockTemplate template;

	public DefaultReactiveRedisLockTemplate(DefaultRedisLockTemplate template) {
		this.template = template;
	}

	@Override
	public <T> Mono<T> execute(String name, Duration waitTime, @Nullable Duration leaseTime,
			Function<Long, Mono<T>> action) {
		RedisLock lock = this.template.getLock(name);
		// The hold goes from the acquisition straight into usingWhen: a step between
		// (a Mono.just of it) would be discarded by Reactor, unseen, when the subscriber
		// leaves at that moment, and the hold renewed for nobody.
		return hold(lock, waitTime, leaseTime).flatMap((acquired) -> {
			if (acquired.isEmpty()) {
				return Mono.error(lock.acquisitionFailure(waitTime));
			}
			AsyncHold hold = acquired.get();
			return Mono
				.usingWhen(Mono.just(hold), (held) -> action.apply(held.fencingToken()),
						DefaultReactiveRedisLockTemplate::release, (held, failure) -> release(held),
						DefaultReactiveRedisLockTemplate::release)
				.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, hold));
		});
	}

	@Override
	public <T> Flux<T> executeMany(String name, Duration waitTime, @Nullable Duration leaseTime,
			Function<Long, Flux<T>> action) {
		RedisLock lock = this.template.getLock(name);
		return hold(lock, waitTime, leaseTime).flatMapMany((acquired) -> {
			if (acquired.isEmpty()) {
				return Flux.error(lock.acquisitionFailure(waitTime));
			}
			AsyncHold hold = acquired.get();
			return Flux
				.usingWhen(Mono.just(hold), (held) -> action.apply(held.fencingToken()),
						DefaultReactiveRedisLockTemplate::release, (held, failure) -> release(held),
						DefaultReactiveRedisLockTemplate::release)
				.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, hold));
		});
	}

	private static void releaseDiscarded(Optional<?> discarded) {
		discarded.ifPresent((hold) -> ((AsyncHold) hold).releaseAsync());
	}

	private static Mono<@Nullable Void> release(AsyncHold hold) {
		return Mono.fromFuture(hold::releaseAsync);
	}

	private Mono<Optional<AsyncHold>> hold(RedisLock lock, Duration waitTime, @Nullable Duration leaseTime) {
		return Mono.fromFuture(() -> this.template.acquireAsync(lock, waitTime, leaseTime), false)
			// Cancelled at the very moment the hold came: Reactor discards it, and it
			// goes back.
			.doOnDiscard(Optional.class, DefaultReactiveRedisLockTemplate::releaseDiscarded);
	}

}
