package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What {@link LockContext} says inside {@link LockHandle#runInContext} of the engine's
 * handles once the handle is released from another thread: the same as the handle itself
 * (and as the interface's default, which a handle of an application's own template gets).
 */
@ExtendWith(RedisExtension.class)
class ReleasedHandleContextTests {

	private final LockTemplates templates;

	private final String name = "handle-context-" + UUID.randomUUID();

	ReleasedHandleContextTests(RedisServer redis) {
		this.templates = new LockTemplates(redis);
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	@Test
	void aLockHandleReleasedByAnotherThreadIsNoLongerHeldInItsContext() throws Exception {
		RedisLock lock = this.templates.create().getLock(this.name);
		LockHandle handle = lock.tryAcquireAsync(Duration.ZERO, null).get(10, TimeUnit.SECONDS).orElseThrow();
		assertReleasedElsewhereIsSeenInContext(handle);
		assertReleasedElsewhereIsSeenInContext(
				new Delegating(lock.tryAcquireAsync(Duration.ZERO, null).get(10, TimeUnit.SECONDS).orElseThrow()));
	}

	@Test
	void aPermitClosedByAnotherThreadIsNoLongerHeldInItsContext() throws Exception {
		SemaphorePermit permit = this.templates.create()
			.getSemaphore(this.name, 1)
			.tryAcquire(Duration.ZERO, null)
			.orElseThrow();
		assertReleasedElsewhereIsSeenInContext(permit);
	}

	private static void assertReleasedElsewhereIsSeenInContext(LockHandle handle) {
		handle.runInContext(() -> {
			assertThat(LockContext.isHeld()).isTrue();
			CompletableFuture.runAsync(handle::release).join();
			assertThat(handle.isHeld()).isFalse();
			assertThat(LockContext.isHeld()).as("LockContext.isHeld() after the handle was released").isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(LockContext::ensureHeld);
			return null;
		});
	}

	/**
	 * A handle of an application's own template: delegates, and keeps the interface's
	 * {@code runInContext}.
	 */
	private record Delegating(LockHandle delegate) implements LockHandle {

		@Override
		public String getName() {
			return this.delegate.getName();
		}

		@Override
		public long fencingToken() {
			return this.delegate.fencingToken();
		}

		@Override
		public boolean isHeld() {
			return this.delegate.isHeld();
		}

		@Override
		public CompletableFuture<@Nullable Void> releaseAsync() {
			return this.delegate.releaseAsync();
		}

	}

}
