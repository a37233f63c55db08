package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import io.github.redislock.core.LockHandle;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A caller of {@link RedisLockTemplate#executeAsync} that stops waiting for the returned
 * future while the lock is still being waited for (cancels it, or lets {@code orTimeout}
 * fail it, as a {@code Mono.fromFuture} cancelled by its subscriber does) leaves nothing
 * taken: the acquisition is given up, the work does not run, and a hold that comes anyway
 * goes back at once.
 */
@ExtendWith(RedisExtension.class)
class AbandonedAsyncCallTests {

	private final LockTemplates templates;

	private final String name = "abandoned-async-" + UUID.randomUUID();

	AbandonedAsyncCallTests(RedisServer redis) {
		this.templates = new LockTemplates(redis);
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	@Test
	void aCallCancelledWhileItWaitsTakesNoLock() throws Exception {
		assertAbandonedCallLeavesNothing((future) -> {
			future.cancel(false);
			return future;
		});
	}

	@Test
	void aCallThatTimedOutWhileItWaitsTakesNoLock() throws Exception {
		assertAbandonedCallLeavesNothing((future) -> future.orTimeout(100, TimeUnit.MILLISECONDS));
	}

	private void assertAbandonedCallLeavesNothing(UnaryOperator<CompletableFuture<String>> abandon) throws Exception {
		DefaultRedisLockTemplate template = this.templates.create();
		LockHandle other = this.templates.create()
			.getLock(this.name)
			.tryAcquireAsync(Duration.ZERO, null)
			.get(10, TimeUnit.SECONDS)
			.orElseThrow();
		AtomicBoolean ran = new AtomicBoolean();
		CompletableFuture<String> call = template.executeAsync(this.name, Duration.ofSeconds(20), null, () -> {
			ran.set(true);
			return CompletableFuture.completedFuture("ran");
		});
		CompletableFuture<String> abandoned = abandon.apply(call);
		await().atMost(Duration.ofSeconds(5)).until(abandoned::isDone);
		other.release();
		// Whoever waits next gets the lock at once: nothing was taken for the caller that
		// left.
		RedisLock next = this.templates.create().getLock(this.name);
		boolean free = next.tryLock(Duration.ofSeconds(3), null);
		if (free) {
			// Not left as this thread's innermost lock for later tests.
			next.unlock();
		}
		assertThat(free).as("the lock is free after the abandoned call").isTrue();
		assertThat(ran).as("the work of an abandoned call ran").isFalse();
		assertThat(template.getActiveHoldCount()).as("holds of the abandoned call's template").isZero();
	}

}
