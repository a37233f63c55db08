package io.github.redislock.internal.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.DistributedSemaphore;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A caller of an annotated {@code CompletableFuture} method that stops waiting for the
 * returned future while the lock (or permit) is still being waited for (cancels it, or
 * lets {@code orTimeout} fail it) leaves nothing taken: the acquisition is given up, the
 * method does not run, and a hold that comes anyway goes back at once.
 */
@ExtendWith(RedisExtension.class)
class AbandonedAnnotatedCallTests {

	static final AtomicInteger RUNS = new AtomicInteger();

	private final ApplicationContextRunner runner;

	AbandonedAnnotatedCallTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis).withBean(Exports.class);
	}

	@Test
	void aLockedCallCancelledWhileItWaitsTakesNoLock() {
		assertAbandonedLockedCallLeavesNothing((future) -> {
			future.cancel(false);
			return future;
		});
	}

	@Test
	void aLockedCallThatTimedOutWhileItWaitsTakesNoLock() {
		assertAbandonedLockedCallLeavesNothing((future) -> future.orTimeout(100, TimeUnit.MILLISECONDS));
	}

	@Test
	void aSemaphoreCallCancelledWhileItWaitsTakesNoPermit() {
		this.runner.run((context) -> {
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			SemaphorePermit other = template.getSemaphore("abandoned-permit", 1)
				.tryAcquire(Duration.ZERO, null)
				.orElseThrow();
			RUNS.set(0);
			CompletableFuture<String> call = context.getBean(Exports.class).permitted();
			Thread.sleep(200);
			call.cancel(false);
			other.close();
			assertThat(template.getSemaphore("abandoned-permit", 1).tryAcquire(Duration.ofSeconds(3), null))
				.as("the permit is free after the abandoned call")
				.hasValueSatisfying(SemaphorePermit::close);
			assertThat(RUNS).as("runs of the abandoned call").hasValue(0);
		});
	}

	private void assertAbandonedLockedCallLeavesNothing(UnaryOperator<CompletableFuture<String>> abandon) {
		this.runner.run((context) -> {
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			LockHandle other = template.getLock("abandoned-lock")
				.tryAcquireAsync(Duration.ZERO, null)
				.get(10, TimeUnit.SECONDS)
				.orElseThrow();
			RUNS.set(0);
			CompletableFuture<String> abandoned = abandon.apply(context.getBean(Exports.class).locked());
			await().atMost(Duration.ofSeconds(5)).until(abandoned::isDone);
			other.release();
			LockHandle next = template.getLock("abandoned-lock")
				.tryAcquireAsync(Duration.ofSeconds(3), null)
				.get(10, TimeUnit.SECONDS)
				.orElse(null);
			if (next != null) {
				next.release();
			}
			assertThat(next).as("the lock is free after the abandoned call").isNotNull();
			assertThat(RUNS).as("runs of the abandoned call").hasValue(0);
		});
	}

	static class Exports {

		@DistributedLock(name = "abandoned-lock", waitTime = "20s")
		public CompletableFuture<String> locked() {
			RUNS.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedSemaphore(name = "abandoned-permit", permits = "1", waitTime = "20s")
		public CompletableFuture<String> permitted() {
			RUNS.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

	}

}
