package io.github.redislock.internal.aop;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.ReadLock;
import io.github.redislock.annotation.WriteLock;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @ReadLock} and {@code @WriteLock} in an application context on a real Redis.
 */
@ExtendWith(RedisExtension.class)
class ReadWriteLockAnnotationTests {

	private final ApplicationContextRunner runner;

	private final ExecutorService threads = Executors.newFixedThreadPool(3);

	ReadWriteLockAnnotationTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis).withBean(CatalogService.class);
	}

	@AfterEach
	void close() {
		this.threads.shutdownNow();
	}

	@Test
	void readersRunSideBySide() {
		this.runner.run((context) -> {
			CatalogService catalog = context.getBean(CatalogService.class);
			CyclicBarrier bothInside = new CyclicBarrier(2);
			Future<Boolean> first = this.threads.submit(() -> catalog.readTogether(1L, bothInside));
			Future<Boolean> second = this.threads.submit(() -> catalog.readTogether(1L, bothInside));
			assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(second.get(30, TimeUnit.SECONDS)).isTrue();
		});
	}

	@Test
	void writeExcludesReadersOfTheSameNameAndKeyOnly() {
		this.runner.run((context) -> {
			CatalogService catalog = context.getBean(CatalogService.class);
			CountDownLatch inside = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<String> writer = this.threads.submit(() -> catalog.write(2L, inside, release));
			assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			assertThat(template.getReadWriteLock("catalog:2").writeLock().isLocked()).isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> catalog.read(2L))
				.withMessageContaining("'catalog:2'");
			assertThat(catalog.read(3L)).isEqualTo("catalog:3");
			assertThat(catalog.exclusive(2L)).as("the exclusive lock of the same name is another lock")
				.isEqualTo("catalog:2");
			release.countDown();
			assertThat(writer.get(30, TimeUnit.SECONDS)).isEqualTo("catalog:2");
			assertThat(catalog.read(2L)).isEqualTo("catalog:2");
		});
	}

	@Test
	void writerMayCallAReaderOfTheSameLock() {
		this.runner.run((context) -> assertThat(context.getBean(CatalogService.class).writeThenRead(4L))
			.isEqualTo("catalog:4"));
	}

	@Test
	void twoLockAnnotationsOnOneMethodFailAtStart() {
		this.runner.withBean(TwoAnnotations.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("@DistributedLock on ReadWriteLockAnnotationTests.TwoAnnotations.call()")
				.hasMessageContaining("also carries [@WriteLock]");
		});
	}

	@Test
	void readLockAttributesAreCheckedAtStart() {
		this.runner.withBean(BadReadKey.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("@ReadLock on ReadWriteLockAnnotationTests.BadReadKey.call(long)")
				.hasMessageContaining("'#nope'");
		});
	}

	static class CatalogService {

		@Autowired
		@Lazy
		CatalogService self;

		@ReadLock(name = "catalog", key = "#id", waitTime = "0")
		public String read(long id) {
			return LockContext.lockName();
		}

		@ReadLock(name = "catalog", key = "#id", waitTime = "0")
		public boolean readTogether(long id, CyclicBarrier bothInside) throws Exception {
			// Both readers must be inside at once for the barrier to open.
			bothInside.await(20, TimeUnit.SECONDS);
			return true;
		}

		@WriteLock(name = "catalog", key = "#id", waitTime = "0")
		public String write(long id, CountDownLatch inside, CountDownLatch release) throws InterruptedException {
			inside.countDown();
			release.await(30, TimeUnit.SECONDS);
			return LockContext.lockName();
		}

		@WriteLock(name = "catalog", key = "#id", waitTime = "0")
		public String writeThenRead(long id) {
			return this.self.read(id);
		}

		@DistributedLock(name = "catalog", key = "#id", waitTime = "0")
		public String exclusive(long id) {
			return LockContext.lockName();
		}

	}

	static class TwoAnnotations {

		@DistributedLock
		@WriteLock
		public void call() {
		}

	}

	static class BadReadKey {

		@ReadLock(key = "#nope")
		public void call(long id) {
		}

	}

}
