package io.github.redislock.test.support;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static io.github.redislock.test.support.RedisLockAssert.assertThatLock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Assertions on locks, against the locks of a real application, and what they say when
 * they fail.
 */
@WithRedis
@SpringBootTest(classes = KitTestApplication.class, properties = { "spring.data.redis.url=redis://127.0.0.1:1",
		"spring.data.redis.password=not-the-test-one", "redislock.queue.backoff.initial=50ms" })
class RedisLockAssertTests {

	@Autowired
	private RedisLockTemplate template;

	@Test
	void heldLockIsHeldByTheCurrentThreadWithAGrowingFencingToken() {
		RedisLock lock = this.template.getLock("orders:42");
		assertThatLock(this.template, "orders:42").isFree();
		lock.lock();
		long first;
		try {
			first = lock.fencingToken();
			assertThatLock(this.template, "orders:42").isHeld().isHeldByCurrentThread();
		}
		finally {
			lock.unlock();
		}
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(30))).isTrue();
		try {
			RedisLockAssert.assertThat(lock)
				.hasFencingTokenGreaterThan(first)
				.hasLeaseLeftAtMost(Duration.ofSeconds(30));
		}
		finally {
			lock.unlock();
		}
		assertThatLock(this.template, "orders:42").isFree();
	}

	@Test
	void failuresNameTheLockAndItsHolder() throws Exception {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThatLock(this.template, "orders:free").isHeld())
			.withMessage("Expected lock 'orders:free' to be held, but it is free");
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
			RedisLock lock = this.template.getLock("orders:7");
			lock.lock();
			try {
				held.countDown();
				done.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock.unlock();
			}
		});
		try {
			assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> assertThatLock(this.template, "orders:7").isFree())
				.withMessageStartingWith("Expected lock 'orders:7' to be free, but it is held by instance ")
				.withMessageContaining("left on its lease");
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> assertThatLock(this.template, "orders:7").isHeldByCurrentThread())
				.withMessageContaining("to be held by the current thread")
				.withMessageContaining("but it is held by instance ");
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> assertThatLock(this.template, "orders:7").hasFencingTokenGreaterThan(0));
		}
		finally {
			done.countDown();
			holder.get(30, TimeUnit.SECONDS);
		}
	}

}
