package io.github.redislock.internal.aop;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.DistributedSemaphore;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.annotation.ReadLock;
import io.github.redislock.annotation.WriteLock;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockCallback;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockObserver;
import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.ReactiveLockContext;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Every lock annotation through an application's own {@link RedisLockTemplate} bean: a
 * wrapper that delegates to the engine, as an application writes to audit or route its
 * locks. The annotations reach the engine through the public API only, so they work on
 * whatever template bean the application defines.
 */
@ExtendWith(RedisExtension.class)
class ApplicationLockTemplateAnnotationTests {

	private final ApplicationContextRunner runner;

	private final String id = UUID.randomUUID().toString();

	ApplicationLockTemplateAnnotationTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisLockMetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withUserConfiguration(ApplicationLocks.class)
			.withBean(Jobs.class);
	}

	@Test
	void theApplicationsTemplateIsTheOnlyLockTemplate() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(RedisLockTemplate.class)
			.getBean(RedisLockTemplate.class)
			.isInstanceOf(AuditingLockTemplate.class)
			.isNotInstanceOf(DefaultRedisLockTemplate.class));
	}

	@Test
	void exclusiveReadAndWriteLocksOnSynchronousMethods() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			AuditingLockTemplate template = context.getBean(AuditingLockTemplate.class);
			assertThat(jobs.exclusive(this.id)).isEqualTo("exclusive:" + this.id);
			assertThat(jobs.read(this.id)).isEqualTo("catalog:" + this.id);
			assertThat(jobs.write(this.id)).isEqualTo("catalog:" + this.id);
			assertThat(template.asked).contains("lock exclusive:" + this.id, "read-write catalog:" + this.id);
		});
	}

	@Test
	void semaphoreOnASynchronousMethod() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.permit(this.id)).isPositive();
			assertThat(context.getBean(AuditingLockTemplate.class).asked).contains("semaphore exports:" + this.id);
			assertThat(context.getBean(AuditingLockTemplate.class).getHeldLocks()).isEmpty();
		});
	}

	@Test
	void completableFutureAndCompletionStageMethodsHoldTheLockUntilTheyComplete() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<Void> finish = new CompletableFuture<>();
			CompletableFuture<Long> future = jobs.future(this.id, finish);
			assertThat(future).isNotDone();
			assertThat(otherOwnerGets(context, "future:" + this.id)).isFalse();
			finish.complete(null);
			assertThat(future).succeedsWithin(Duration.ofSeconds(10))
				.satisfies((token) -> assertThat(token).isPositive());
			assertThat(otherOwnerGets(context, "future:" + this.id)).isTrue();
			assertThat(jobs.stage(this.id).toCompletableFuture()).succeedsWithin(Duration.ofSeconds(10))
				.isEqualTo("stage:" + this.id);
		});
	}

	@Test
	void monoAndFluxMethodsHoldTheLockUntilTheyComplete() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.mono(this.id).block(Duration.ofSeconds(10))).isPositive();
			List<Boolean> whileEmitting = jobs.flux(this.id)
				.map((page) -> !otherOwnerGets(context, "flux:" + this.id))
				.collectList()
				.block(Duration.ofSeconds(10));
			assertThat(whileEmitting).containsExactly(true, true, true);
			assertThat(otherOwnerGets(context, "flux:" + this.id)).isTrue();
			assertThat(jobs.semaphoreMono(this.id).block(Duration.ofSeconds(10))).isPositive();
			assertThat(context.getBean(AuditingLockTemplate.class).asked).contains("lock mono:" + this.id,
					"lock flux:" + this.id, "semaphore exports:" + this.id);
		});
	}

	@Test
	void whenTheLockIsTakenSkipFallbackAndThrowBehaveAsOnTheStartersTemplate() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			RedisLock other = context.getBean(RedisLockTemplate.class).getLock("mono:" + this.id);
			assertThat(CompletableFuture.supplyAsync(() -> other.tryLock(Duration.ZERO, null)).join()).isTrue();
			try {
				assertThat(jobs.monoOrSkip(this.id).block(Duration.ofSeconds(10))).isNull();
				assertThat(jobs.monoOrFallback(this.id).block(Duration.ofSeconds(10))).isEqualTo(-1L);
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> jobs.mono(this.id).block(Duration.ofSeconds(10)))
					.withMessageContaining("mono:" + this.id);
			}
			finally {
				other.forceUnlock();
			}
		});
	}

	@Test
	void aScheduledStyleCallSkipsTheTickWhenTheLockIsTakenAndIsMeasuredAsSkipped() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			Jobs.TICKS.clear();
			RedisLock other = context.getBean(RedisLockTemplate.class).getLock(Jobs.TICK);
			assertThat(CompletableFuture.supplyAsync(() -> other.tryLock(Duration.ZERO, null)).join()).isTrue();
			try {
				jobs.tick();
				assertThat(Jobs.TICKS).isEmpty();
			}
			finally {
				other.forceUnlock();
			}
			jobs.tick();
			assertThat(Jobs.TICKS).hasSize(1);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("redislock.acquire")
				.tags("name", Jobs.TICK, "type", "exclusive", "outcome", "skipped")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.find("redislock.acquire").tags("name", Jobs.TICK, "outcome", "timeout").timer()).isNull();
		});
	}

	private static boolean otherOwnerGets(ApplicationContext context, String name) {
		RedisLock lock = context.getBean(RedisLockTemplate.class).getLock(name);
		return CompletableFuture.supplyAsync(() -> {
			boolean acquired = lock.tryLock(Duration.ZERO, null);
			if (acquired) {
				lock.unlock();
			}
			return acquired;
		}).join();
	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationLocks {

		@Bean
		AuditingLockTemplate applicationLockTemplate(RedisConnectionFactory connectionFactory) {
			return new AuditingLockTemplate(new DefaultRedisLockTemplate(connectionFactory));
		}

	}

	/**
	 * An application's own template: records what it is asked for and delegates to the
	 * engine it wraps (which is not a bean). Keeps the metrics by being observable too.
	 */
	static class AuditingLockTemplate implements RedisLockTemplate, ObservableLockTemplate, DisposableBean {

		final Set<String> asked = ConcurrentHashMap.newKeySet();

		private final DefaultRedisLockTemplate engine;

		AuditingLockTemplate(DefaultRedisLockTemplate engine) {
			this.engine = engine;
		}

		@Override
		public RedisLock getLock(String name) {
			this.asked.add("lock " + name);
			return this.engine.getLock(name);
		}

		@Override
		public RedisReadWriteLock getReadWriteLock(String name) {
			this.asked.add("read-write " + name);
			return this.engine.getReadWriteLock(name);
		}

		@Override
		public RedisSemaphore getSemaphore(String name, int permits) {
			this.asked.add("semaphore " + name);
			return this.engine.getSemaphore(name, permits);
		}

		@Override
		public <T extends @Nullable Object> T execute(String name, Duration waitTime, @Nullable Duration leaseTime,
				LockCallback<T> action) {
			this.asked.add("execute " + name);
			return this.engine.execute(name, waitTime, leaseTime, action);
		}

		@Override
		public <T extends @Nullable Object> CompletableFuture<T> executeAsync(String name, Duration waitTime,
				@Nullable Duration leaseTime, Supplier<? extends CompletionStage<T>> action) {
			this.asked.add("execute " + name);
			return this.engine.executeAsync(name, waitTime, leaseTime, action);
		}

		@Override
		public void setLockObserver(LockObserver observer) {
			this.engine.setLockObserver(observer);
		}

		@Override
		public List<HeldLock> getHeldLocks() {
			return this.engine.getHeldLocks();
		}

		@Override
		public int getActiveHoldCount() {
			return this.engine.getActiveHoldCount();
		}

		@Override
		public void destroy() throws Exception {
			this.engine.destroy();
		}

	}

	static class Jobs {

		static final String TICK = "application-template-tick";

		static final List<String> TICKS = new CopyOnWriteArrayList<>();

		@DistributedLock(name = "exclusive", key = "#id", waitTime = "5s")
		public String exclusive(String id) {
			return LockContext.lockName();
		}

		@ReadLock(name = "catalog", key = "#id", waitTime = "5s")
		public String read(String id) {
			return LockContext.lockName();
		}

		@WriteLock(name = "catalog", key = "#id", waitTime = "5s")
		public String write(String id) {
			return LockContext.lockName();
		}

		@DistributedSemaphore(name = "exports", key = "#id", permits = "2", waitTime = "5s")
		public long permit(String id) {
			return LockContext.fencingToken();
		}

		@DistributedLock(name = "future", key = "#id", waitTime = "5s")
		public CompletableFuture<Long> future(String id, CompletableFuture<Void> finish) {
			long token = LockContext.fencingToken();
			return finish.thenApply((done) -> token);
		}

		@DistributedLock(name = "stage", key = "#id", waitTime = "5s")
		public CompletionStage<String> stage(String id) {
			return CompletableFuture.completedFuture(LockContext.lockName());
		}

		@DistributedLock(name = "mono", key = "#id", waitTime = "0")
		public Mono<Long> mono(String id) {
			return ReactiveLockContext.fencingToken();
		}

		@DistributedLock(name = "mono", key = "#id", waitTime = "0", onFailure = OnLockFailure.SKIP)
		public Mono<Long> monoOrSkip(String id) {
			return ReactiveLockContext.fencingToken();
		}

		@DistributedLock(name = "mono", key = "#id", waitTime = "0", fallback = "busy")
		public Mono<Long> monoOrFallback(String id) {
			return ReactiveLockContext.fencingToken();
		}

		public Mono<Long> busy(String id) {
			return Mono.just(-1L);
		}

		@DistributedLock(name = "flux", key = "#id", waitTime = "5s")
		public Flux<Integer> flux(String id) {
			return Flux.just(1, 2, 3).delayElements(Duration.ofMillis(20));
		}

		@DistributedSemaphore(name = "exports", key = "#id", permits = "2", waitTime = "5s")
		public Mono<Long> semaphoreMono(String id) {
			return ReactiveLockContext.fencingToken();
		}

		/**
		 * Not scheduled here (no @EnableScheduling): the test calls it as a scheduler
		 * would.
		 */
		@Scheduled(fixedDelay = 3_600_000)
		@DistributedLock(name = TICK, holdAtLeast = "50ms")
		public void tick() {
			TICKS.add(LockContext.lockName());
		}

	}

}
