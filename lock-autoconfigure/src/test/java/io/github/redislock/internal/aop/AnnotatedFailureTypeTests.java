package io.github.redislock.internal.aop;

import java.io.IOException;
import java.util.concurrent.CompletionException;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.DistributedSemaphore;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What an annotated method throws reaches its caller as it was thrown, whichever lock
 * annotation it has: a {@code CompletionException} of the method's own (a failed
 * {@code join()}) is not unwrapped.
 */
@ExtendWith(RedisExtension.class)
class AnnotatedFailureTypeTests {

	private final ApplicationContextRunner runner;

	AnnotatedFailureTypeTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis).withBean(Joiner.class);
	}

	@Test
	void aLockedMethodsOwnCompletionExceptionReachesTheCaller() {
		this.runner.run((context) -> assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> context.getBean(Joiner.class).locked())
			.withCauseInstanceOf(IllegalStateException.class));
	}

	@Test
	void aSemaphoreMethodsOwnCompletionExceptionReachesTheCaller() {
		this.runner.run((context) -> assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> context.getBean(Joiner.class).permitted())
			.withCauseInstanceOf(IllegalStateException.class));
	}

	@Test
	void aSemaphoreMethodsCheckedExceptionReachesTheCaller() {
		this.runner.run((context) -> assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> context.getBean(Joiner.class).permittedChecked()));
	}

	static class Joiner {

		@DistributedSemaphore(name = "failure-type-semaphore", permits = "2", waitTime = "5s")
		public void permittedChecked() throws IOException {
			throw new IOException("the work's own checked failure");
		}

		@DistributedLock(name = "failure-type-lock", waitTime = "5s")
		public void locked() {
			throw new CompletionException(new IllegalStateException("the work's own failure"));
		}

		@DistributedSemaphore(name = "failure-type-semaphore", permits = "2", waitTime = "5s")
		public void permitted() {
			throw new CompletionException(new IllegalStateException("the work's own failure"));
		}

	}

}
