package io.github.redislock.internal.aop;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.annotation.WriteLock;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.ReactiveLockContext;
import io.github.redislock.core.ReactiveRedisLockTemplate;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ReactiveTypeDescriptor;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Annotated methods returning {@code CompletableFuture}, {@code Mono} and {@code Flux}:
 * the lock is held until the returned result completes.
 */
@ExtendWith(RedisExtension.class)
class AsyncAnnotationTests {

	static {
		ReactiveAdapterRegistry.getSharedInstance()
			.registerReactiveType(ReactiveTypeDescriptor.singleOptionalValue(Deferred.class, Deferred::empty),
					(deferred) -> ((Deferred<?>) deferred).mono(), (publisher) -> new Deferred<>(Mono.from(publisher)));
	}

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	private final String id = UUID.randomUUID().toString();

	AsyncAnnotationTests(RedisServer redis) {
		this.redis = redis;
		this.runner = LockApplicationContextRunner.on(redis).withBean(Reports.class);
	}

	private StringRedisTemplate raw() {
		return this.redis.template();
	}

	private boolean locked() {
		return LockRecords.isHeld(raw(), "redislock:{reports:" + this.id + "}");
	}

	@Test
	void aFutureMethodRunsOnceTheLockIsHeldAndReleasesItWhenTheFutureCompletes() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<Void> finish = new CompletableFuture<>();
			CompletableFuture<Long> result = reports.build(this.id, work, finish);
			assertThat(work).succeedsWithin(Duration.ofSeconds(5));
			assertThat(locked()).isTrue();
			assertThat(result).isNotDone();
			finish.complete(null);
			assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isInstanceOf(Long.class);
			assertThat(result.join()).as("the fencing token seen in the method").isPositive();
			assertThat(locked()).isFalse();
		});
	}

	/**
	 * Subscribers that cancel at any moment, also the one at which the lock comes: no
	 * hold is ever left behind (a hold that arrives after the cancel goes back).
	 */
	@Test
	void aMonoCancelledAtAnyMomentNeverLeavesItsLockBehind() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			Random random = new Random();
			for (int i = 0; i < 300; i++) {
				Disposable subscription = reports.render(this.id).onErrorResume((ex) -> Mono.empty()).subscribe();
				LockSupport.parkNanos(random.nextInt(2_000_000));
				subscription.dispose();
			}
			ObservableLockTemplate template = (ObservableLockTemplate) context.getBean(RedisLockTemplate.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> template.getHeldLocks().isEmpty() && !locked());
		});
	}

	@Test
	void aMonoMethodTakesTheLockOnSubscriptionAndReleasesItOnCompletion() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			Mono<Long> mono = reports.render(this.id);
			assertThat(locked()).as("nothing happens before subscription").isFalse();
			assertThat(mono.block(Duration.ofSeconds(10))).isPositive();
			// A Mono's value is passed on once the lock is released.
			assertThat(locked()).isFalse();
			assertThat(reports.heldInside(this.id).block(Duration.ofSeconds(10))).isTrue();
		});
	}

	@Test
	void aFluxMethodHoldsTheLockUntilItCompletes() {
		this.runner.run((context) -> {
			List<Boolean> whileEmitting = context.getBean(Reports.class)
				.pages(this.id)
				.map((page) -> locked())
				.collectList()
				.block(Duration.ofSeconds(10));
			assertThat(whileEmitting).containsExactly(true, true, true);
			assertThat(locked()).isFalse();
		});
	}

	@Test
	void aReactiveTypeOfSpringsAdapterRegistryHoldsTheLockFromSubscriptionToCompletion() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			Deferred<Boolean> deferred = reports.deferred(this.id);
			assertThat(locked()).as("nothing happens before subscription").isFalse();
			assertThat(deferred.mono().block(Duration.ofSeconds(10))).as("held inside").isTrue();
			assertThat(locked()).isFalse();
		});
	}

	@Test
	void whenTheLockIsTakenSkipCompletesEmptyFallbackIsCalledAndThrowFails() throws Exception {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			RedisLock other = context.getBean(RedisLockTemplate.class).getLock("reports:" + this.id);
			CompletableFuture<Boolean> taken = CompletableFuture.supplyAsync(() -> other.tryLock(Duration.ZERO, null));
			assertThat(taken.join()).isTrue();
			try {
				assertThat(reports.renderOrSkip(this.id).block(Duration.ofSeconds(10))).isNull();
				assertThat(reports.buildOrSkip(this.id).get()).isNull();
				assertThat(reports.renderOrFallback(this.id).block(Duration.ofSeconds(10))).isEqualTo(-1L);
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> reports.render(this.id).block(Duration.ofSeconds(10)))
					.withMessageContaining("reports:" + this.id);
			}
			finally {
				other.forceUnlock();
			}
		});
	}

	@Test
	void aWriteLockOnAMonoExcludesTheReadersUntilItCompletes() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			RedisLock read = context.getBean(RedisLockTemplate.class).getReadWriteLock("catalog:" + this.id).readLock();
			Boolean readerGotIn = reports.rewrite(this.id, () -> CompletableFuture.supplyAsync(() -> {
				boolean acquired = read.tryLock(Duration.ZERO, null);
				if (acquired) {
					read.unlock();
				}
				return acquired;
			})).block(Duration.ofSeconds(10));
			assertThat(readerGotIn).isFalse();
			CompletableFuture<Boolean> after = CompletableFuture.supplyAsync(() -> {
				boolean acquired = read.tryLock(Duration.ofSeconds(5), null);
				if (acquired) {
					read.unlock();
				}
				return acquired;
			});
			assertThat(after.join()).isTrue();
		});
	}

	@Test
	void theReactiveTemplateIsABeanAndGivesTheFencingToken() {
		this.runner.run((context) -> {
			ReactiveRedisLockTemplate locks = context.getBean(ReactiveRedisLockTemplate.class);
			Long token = locks.execute("reactive:" + this.id, Duration.ofSeconds(5), null, Mono::just)
				.block(Duration.ofSeconds(10));
			assertThat(token).isPositive();
			List<Long> tokens = locks
				.executeMany("reactive:" + this.id, Duration.ofSeconds(5), null, (held) -> Flux.just(held, held))
				.collectList()
				.block(Duration.ofSeconds(10));
			assertThat(tokens).hasSize(2).allSatisfy((held) -> assertThat(held).isGreaterThan(token));
		});
	}

	static class Reports {

		@DistributedLock(name = "reports", key = "#id", waitTime = "0")
		public CompletableFuture<Long> build(String id, CompletableFuture<String> started,
				CompletableFuture<Void> finish) {
			long token = LockContext.fencingToken();
			started.complete(id);
			return finish.thenApply((done) -> token);
		}

		@DistributedLock(name = "reports", key = "#id", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public CompletableFuture<Long> buildOrSkip(String id) {
			return CompletableFuture.completedFuture(1L);
		}

		@DistributedLock(name = "reports", key = "#id", waitTime = "0")
		public Mono<Long> render(String id) {
			return ReactiveLockContext.fencingToken();
		}

		@DistributedLock(name = "reports", key = "#id", waitTime = "0")
		public Mono<Boolean> heldInside(String id) {
			return ReactiveLockContext.isHeld();
		}

		@DistributedLock(name = "reports", key = "#id", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public Mono<Long> renderOrSkip(String id) {
			return ReactiveLockContext.fencingToken();
		}

		@DistributedLock(name = "reports", key = "#id", waitTime = "0", fallback = "busy")
		public Mono<Long> renderOrFallback(String id) {
			return ReactiveLockContext.fencingToken();
		}

		public Mono<Long> busy(String id) {
			return Mono.just(-1L);
		}

		@DistributedLock(name = "reports", key = "#id", waitTime = "0")
		public Flux<Integer> pages(String id) {
			return Flux.just(1, 2, 3).delayElements(Duration.ofMillis(20));
		}

		@DistributedLock(name = "reports", key = "#id", waitTime = "0")
		public Deferred<Boolean> deferred(String id) {
			return new Deferred<>(ReactiveLockContext.isHeld());
		}

		@WriteLock(name = "catalog", key = "#id", waitTime = "0")
		public Mono<Boolean> rewrite(String id, java.util.function.Supplier<CompletableFuture<Boolean>> reader) {
			return Mono.fromFuture(reader);
		}

	}

	/**
	 * A reactive type of the application's own, known to Spring's
	 * {@code ReactiveAdapterRegistry} (as RxJava's, Mutiny's or Kotlin's are).
	 */
	record Deferred<T>(Mono<T> mono) {

		static Deferred<?> empty() {
			return new Deferred<>(Mono.empty());
		}

	}

}
