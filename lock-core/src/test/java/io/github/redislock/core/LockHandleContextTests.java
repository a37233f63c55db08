package io.github.redislock.core;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@link LockHandle} of a template that is not the starter's is described by
 * {@link LockContext} and {@link ReactiveLockContext} through its own methods.
 */
class LockHandleContextTests {

	@Test
	void lockContextDescribesAForeignHandleInsideRunInContext() {
		ForeignHandle handle = new ForeignHandle();
		assertThat(handle.runInContext(() -> LockContext.lockName() + "#" + LockContext.fencingToken()))
			.isEqualTo("foreign#42");
		handle.held = false;
		handle.runInContext(() -> {
			assertThat(LockContext.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(LockContext::ensureHeld)
				.withMessageContaining("foreign");
			return null;
		});
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(LockContext::fencingToken);
	}

	@Test
	void reactiveLockContextDescribesAForeignHandleInTheContext() {
		ForeignHandle handle = new ForeignHandle();
		assertThat(ReactiveLockContext.fencingToken()
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, handle))
			.block()).isEqualTo(42L);
		handle.held = false;
		Mono<Void> ensured = ReactiveLockContext.ensureHeld()
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, handle));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(ensured::block);
		Mono<Long> wrongEntry = ReactiveLockContext.fencingToken()
			.contextWrite((context) -> context.put(ReactiveLockContext.HOLD_KEY, "not a handle"));
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(wrongEntry::block)
			.withMessageContaining("not a LockHandle");
	}

	static final class ForeignHandle implements LockHandle {

		volatile boolean held = true;

		@Override
		public String getName() {
			return "foreign";
		}

		@Override
		public long fencingToken() {
			return 42;
		}

		@Override
		public boolean isHeld() {
			return this.held;
		}

		@Override
		public CompletableFuture<@Nullable Void> releaseAsync() {
			this.held = false;
			return CompletableFuture.completedFuture(null);
		}

	}

}
