package io.github.redislock.config;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockHolder;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A plain Spring application, without Spring Boot, uses the core template over a
 * {@link LettuceConnectionFactory}: locks, waits for a release, reads its context, and
 * gives its locks back when the context closes.
 */
@ExtendWith(RedisExtension.class)
class PlainSpringApplicationTests {

	private final RedisServer redis;

	PlainSpringApplicationTests(RedisServer redis) {
		this.redis = redis;
	}

	@Test
	void springBootIsNotOnTheClassPath() {
		assertThat(ClassUtils.isPresent("org.springframework.boot.SpringApplication", null)).isFalse();
	}

	@Test
	void plainSpringContextLocksWithTheCoreTemplate() throws Exception {
		String heldAtClose = "held-at-close";
		try (AnnotationConfigApplicationContext first = start(); AnnotationConfigApplicationContext second = start()) {
			RedisLockTemplate template = first.getBean(RedisLockTemplate.class);
			long token = template.execute("plain-spring", Duration.ofSeconds(5), null, () -> {
				assertThat(LockContext.lockName()).isEqualTo("plain-spring");
				return LockContext.fencingToken();
			});
			assertThat(token).isPositive();

			RedisLock held = template.getLock("handed-over");
			assertThat(held.tryLock(Duration.ZERO, null)).isTrue();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(
						() -> assertThat(held.holder()).map(LockHolder::application).contains("plain-spring-app"));
			// Another instance waits for the release, and gets the lock when it comes.
			RedisLock other = second.getBean(RedisLockTemplate.class).getLock("handed-over");
			CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
				boolean acquired = other.tryLock(Duration.ofSeconds(20), null);
				try {
					return acquired ? other.fencingToken() : -1L;
				}
				finally {
					if (acquired) {
						other.unlock();
					}
				}
			});
			assertThat(other.isLocked()).isTrue();
			long firstToken = held.fencingToken();
			held.unlock();
			assertThat(waiter.get(20, TimeUnit.SECONDS)).isGreaterThan(firstToken);

			// A hold still taken when the context closes is given back to Redis. (Taken
			// on a thread of its own, which ends holding it, so that the hold does not
			// stay this test thread's innermost lock for later tests.)
			CompletableFuture<Boolean> taken = new CompletableFuture<>();
			Thread holder = new Thread(
					() -> taken.complete(template.getLock(heldAtClose).tryLock(Duration.ZERO, null)));
			holder.start();
			assertThat(taken.get(20, TimeUnit.SECONDS)).isTrue();
			holder.join();
		}
		try (AnnotationConfigApplicationContext next = start()) {
			assertThat(next.getBean(RedisLockTemplate.class).getLock(heldAtClose).isLocked()).isFalse();
		}
	}

	private AnnotationConfigApplicationContext start() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(RedisStandaloneConfiguration.class,
				() -> new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()));
		context.register(Locks.class);
		context.refresh();
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	static class Locks {

		@Bean
		LettuceConnectionFactory redisConnectionFactory(RedisStandaloneConfiguration server) {
			return new LettuceConnectionFactory(server);
		}

		@Bean
		RedisLockTemplate redisLockTemplate(LettuceConnectionFactory connectionFactory) {
			return RedisLockTemplateBuilder.forConnectionFactory(connectionFactory)
				.keyPrefix("plain")
				.leaseTime(Duration.ofSeconds(10))
				.applicationName("plain-spring-app")
				.build();
		}

	}

}
