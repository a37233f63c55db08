package io.github.redislock.core;

import java.util.Optional;

import io.github.redislock.support.CurrentLock;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The lock a reactive chain runs under (a {@code Mono} or {@code Flux} returned by an
 * annotated method, or the publisher of a {@link ReactiveRedisLockTemplate} callback):
 * the reactive counterpart of {@link LockContext}, read from the Reactor {@code Context}.
 * <pre class="code">
 * return ReactiveLockContext.fencingToken()
 *     .flatMap((token) -&gt; repository.save(order, token));
 * </pre> Requires Reactor on the class path.
 *
 * @since 0.1.0
 */
public final class ReactiveLockContext {

	/**
	 * The Reactor {@code Context} key under which the hold, a {@link LockHandle}, is
	 * kept.
	 */
	public static final String HOLD_KEY = ReactiveLockContext.class.getName() + ".hold";

	private ReactiveLockContext() {
	}

	/**
	 * Return the fencing token of the lock the chain runs under.
	 * @return the token; fails with {@link IllegalStateException} outside a locked chain
	 */
	public static Mono<Long> fencingToken() {
		return Mono.deferContextual((context) -> Mono.just(hold(context).fencingToken()));
	}

	/**
	 * Return the full name of the lock the chain runs under.
	 * @return the lock name; fails with {@link IllegalStateException} outside a locked
	 * chain
	 */
	public static Mono<String> lockName() {
		return Mono.deferContextual((context) -> Mono.just(hold(context).lockName()));
	}

	/**
	 * Return whether the lock the chain runs under is still held: {@code false} once it
	 * is known lost.
	 * @return whether it is held; fails with {@link IllegalStateException} outside a
	 * locked chain
	 */
	public static Mono<Boolean> isHeld() {
		return Mono.deferContextual((context) -> Mono.just(hold(context).isHeld()));
	}

	/**
	 * Complete empty while the lock is held, fail with {@link LockLostException} once it
	 * is known lost: {@code ensureHeld().then(write)}.
	 * @return an empty {@code Mono}
	 */
	public static Mono<Void> ensureHeld() {
		return Mono.deferContextual((context) -> {
			CurrentLock hold = hold(context);
			if (!hold.isHeld()) {
				throw new LockLostException(hold.lockName(), hold.fencingToken(), hold.lostReason());
			}
			return Mono.empty();
		});
	}

	private static CurrentLock describe(Object hold) {
		if (hold instanceof CurrentLock described) {
			return described;
		}
		if (hold instanceof LockHandle handle) {
			return HandleLock.of(handle);
		}
		throw new IllegalStateException(
				"The reactive Context entry " + HOLD_KEY + " is a " + hold.getClass().getName() + ", not a LockHandle");
	}

	private static CurrentLock hold(ContextView context) {
		Optional<Object> hold = context.getOrEmpty(HOLD_KEY);
		return hold.map(ReactiveLockContext::describe)
			.orElseThrow(() -> new IllegalStateException("This reactive chain runs under no distributed lock;"
					+ " ReactiveLockContext is only available inside a Mono or Flux returned by an annotated method, or"
					+ " a ReactiveRedisLockTemplate callback"));
	}

}
