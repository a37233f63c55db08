package io.github.redislock.internal.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.DistributedSemaphore;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.ReactiveLockContext;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedSemaphore} on a real Redis: at most N calls at once, the lock
 * annotations' failure policies, asynchronous results, start-up checks, meters and held
 * permits.
 */
@ExtendWith(RedisExtension.class)
class SemaphoreAnnotationTests {

	static final AtomicInteger INSIDE = new AtomicInteger();

	static final AtomicInteger MOST = new AtomicInteger();

	private final ApplicationContextRunner runner;

	private final String id = UUID.randomUUID().toString();

	SemaphoreAnnotationTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisLockMetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("test.permits=3")
			.withBean(Exports.class);
	}

	@Test
	void atMostThePermitsRunAtOnceAcrossThreads() throws Exception {
		this.runner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			INSIDE.set(0);
			MOST.set(0);
			ExecutorService threads = Executors.newFixedThreadPool(16);
			try {
				List<Future<Long>> calls = new ArrayList<>();
				for (int i = 0; i < 48; i++) {
					calls.add(threads.submit(() -> exports.export(this.id)));
				}
				for (Future<Long> call : calls) {
					assertThat(call.get(2, TimeUnit.MINUTES)).as("the permit's token").isPositive();
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(MOST.get()).isLessThanOrEqualTo(3).isGreaterThan(1);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("redislock.acquire")
				.tags("name", "exports", "type", "semaphore", "outcome", "acquired")
				.timer()
				.count()).isEqualTo(48);
		});
	}

	@Test
	void withNoPermitFreeSkipFallbackAndThrowBehaveAsForLocks() {
		this.runner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			List<SemaphorePermit> taken = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				taken.add(context.getBean(RedisLockTemplate.class)
					.getSemaphore("exports:" + this.id, 3)
					.tryAcquire(Duration.ZERO, null)
					.orElseThrow());
			}
			try {
				assertThat(exports.exportOrSkip(this.id)).isNull();
				assertThat(exports.exportOrFallback(this.id)).isEqualTo(-1L);
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> exports.exportNow(this.id))
					.withMessageContaining("exports:" + this.id);
				assertThat(exports.render(this.id).block(Duration.ofSeconds(10))).isNull();
			}
			finally {
				taken.forEach(SemaphorePermit::close);
			}
		});
	}

	/**
	 * A caller interrupted while it waits for a permit (a request timeout,
	 * {@code shutdownNow()}) gives up: the permit that frees up later goes to whoever
	 * waits next, not to nobody.
	 */
	@Test
	void anInterruptedWaiterTakesNoPermitForNobody() {
		this.runner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			RedisSemaphore semaphore = template.getSemaphore("exports:" + this.id, 3);
			List<SemaphorePermit> taken = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				taken.add(semaphore.tryAcquire(Duration.ZERO, null).orElseThrow());
			}
			List<Thread> callers = new ArrayList<>();
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			AtomicInteger ran = new AtomicInteger();
			for (int i = 0; i < 3; i++) {
				Thread caller = new Thread(() -> {
					try {
						exports.exportWaiting(this.id);
						ran.incrementAndGet();
					}
					catch (Throwable ex) {
						failures.add(ex);
					}
				});
				caller.start();
				callers.add(caller);
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> callers.stream().allMatch((caller) -> caller.getState() == Thread.State.WAITING));
			callers.forEach(Thread::interrupt);
			for (Thread caller : callers) {
				caller.join(10_000);
			}
			// The method does not declare it: the proxy wraps the interrupt.
			assertThat(failures).hasSize(3)
				.allMatch((failure) -> failure instanceof InterruptedException
						|| failure.getCause() instanceof InterruptedException);
			taken.forEach(SemaphorePermit::close);
			// The given-up acquisitions would take the freed permits within milliseconds.
			await().during(Duration.ofSeconds(2))
				.atMost(Duration.ofSeconds(10))
				.until(() -> semaphore.availablePermits() == 3);
			assertThat(ran).hasValue(0);
			assertThat(((ObservableLockTemplate) template).getHeldLocks()).isEmpty();
		});
	}

	@Test
	void aMonoMethodHoldsItsPermitUntilItCompletesAndTheEndpointListsHeldPermits() throws Exception {
		this.runner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			CountDownLatch inside = new CountDownLatch(1);
			CompletableFuture<Void> finish = new CompletableFuture<>();
			CompletableFuture<Long> result = exports.stream(this.id, inside, finish).toFuture();
			assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
			ObservableLockTemplate template = (ObservableLockTemplate) context.getBean(RedisLockTemplate.class);
			assertThat(template.getHeldLocks()).extracting(HeldLock::type, HeldLock::name)
				.containsExactly(org.assertj.core.groups.Tuple.tuple("semaphore", "exports:" + this.id));
			finish.complete(null);
			assertThat(result.get(10, TimeUnit.SECONDS)).isPositive();
			assertThat(template.getHeldLocks()).isEmpty();
		});
	}

	@Test
	void badPermitsFailTheStartNamingTheMethodAndTheText() {
		this.runner.withBean(BadPermits.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("BadPermits.run(")
				.hasStackTraceContaining("permits 'none'");
		});
		this.runner.withBean(ZeroPermits.class)
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining("ZeroPermits.run(")
				.hasStackTraceContaining("at least 1"));
	}

	static class Exports {

		@DistributedSemaphore(name = "exports", key = "#id", permits = "${test.permits}", waitTime = "1m")
		public long export(String id) throws InterruptedException {
			MOST.accumulateAndGet(INSIDE.incrementAndGet(), Math::max);
			Thread.sleep(5);
			INSIDE.decrementAndGet();
			return LockContext.fencingToken();
		}

		@DistributedSemaphore(name = "exports", key = "#id", permits = "3", waitTime = "0",
				onFailure = OnLockFailure.SKIP)
		public Long exportOrSkip(String id) {
			return 1L;
		}

		@DistributedSemaphore(name = "exports", key = "#id", permits = "3", waitTime = "0", fallback = "busy")
		public Long exportOrFallback(String id) {
			return 1L;
		}

		public Long busy(String id) {
			return -1L;
		}

		@DistributedSemaphore(name = "exports", key = "#id", permits = "3", waitTime = "30s")
		public Long exportWaiting(String id) {
			return 1L;
		}

		@DistributedSemaphore(name = "exports", key = "#id", permits = "3", waitTime = "0")
		public Long exportNow(String id) {
			return 1L;
		}

		@DistributedSemaphore(name = "exports", key = "#id", permits = "3", waitTime = "0",
				onFailure = OnLockFailure.SKIP)
		public Mono<Long> render(String id) {
			return Mono.just(1L);
		}

		@DistributedSemaphore(name = "exports", key = "#id", permits = "3", waitTime = "0")
		public Mono<Long> stream(String id, CountDownLatch inside, CompletableFuture<Void> finish) {
			return ReactiveLockContext.fencingToken()
				.doOnNext((token) -> inside.countDown())
				.flatMap((token) -> Mono.fromFuture(finish).thenReturn(token));
		}

	}

	static class BadPermits {

		@DistributedSemaphore(permits = "none")
		public void run() {
		}

	}

	static class ZeroPermits {

		@DistributedSemaphore(permits = "0")
		public void run() {
		}

	}

}
