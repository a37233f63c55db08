package io.github.redislock.faults;

import java.time.Duration;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * An application on Jedis, run in a JVM without Lettuce on its class path: takes a lock
 * (and, with a second argument, asks for replica acknowledgement), and reports on stdout
 * what happened.
 */
public final class JedisApplication {

	private JedisApplication() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 2 && args[2].equals("boot")) {
			boot(args[0], args[1]);
			return;
		}
		JedisConnectionFactory factory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])));
		factory.afterPropertiesSet();
		factory.start();
		LockSettings settings = (args.length > 2)
				? LockSettings.DEFAULTS.withReplicaAcknowledgement(1, Duration.ofMillis(100)) : LockSettings.DEFAULTS;
		try {
			DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(factory, settings);
			RedisLock lock = template.getLock("jedis-app");
			boolean acquired = lock.tryLock(Duration.ofSeconds(5), null);
			long token = lock.fencingToken();
			RedisLock other = new DefaultRedisLockTemplate(factory).getLock("jedis-app");
			boolean second = other.tryLock(Duration.ZERO, null);
			lock.unlock();
			boolean afterRelease = other.tryLock(Duration.ofSeconds(5), null);
			other.unlock();
			System.out.println("done acquired=" + acquired + " token=" + token + " second=" + second + " afterRelease="
					+ afterRelease);
			template.destroy();
		}
		catch (Throwable ex) {
			System.out.println("failed " + ex);
		}
		finally {
			factory.destroy();
		}
		System.exit(0);
	}

	/**
	 * The same as a Spring Boot application: Spring Data Redis on Jedis, the starter's
	 * auto-configuration, an annotated method.
	 */
	private static void boot(String host, String port) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.run("--spring.data.redis.host=" + host, "--spring.data.redis.port=" + port,
					"--spring.data.redis.client-type=jedis", "--redislock.queue.workers=2",
					"--redislock.queue.backoff.initial=10ms", "--redislock.queue.poll-interval=200ms")) {
			String factory = context.getBean(RedisConnectionFactory.class).getClass().getSimpleName();
			long token = context.getBean(Guarded.class).run();
			long asyncToken = context.getBean(Guarded.class).runAsync().get(30, java.util.concurrent.TimeUnit.SECONDS);
			Mailer mailer = context.getBean(Mailer.class);
			for (String id : java.util.List.of("a", "b", "flaky")) {
				mailer.send(id);
			}
			boolean queued = Mailer.SENT.await(30, java.util.concurrent.TimeUnit.SECONDS);
			boolean reactor = org.springframework.util.ClassUtils.isPresent("reactor.core.publisher.Mono", null);
			System.out.println("done factory=" + factory + " token=" + token + " asyncToken=" + asyncToken + " reactor="
					+ reactor + " reactiveTemplate=" + context.containsBean("reactiveRedisLockTemplate") + " queued="
					+ queued + " flakyRuns=" + Mailer.FLAKY_RUNS.get());
		}
		catch (Throwable ex) {
			System.out.println("failed " + ex);
		}
		System.exit(0);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Guarded.class, Mailer.class })
	static class Application {

	}

	/**
	 * Tasks run by the queue's workers on Jedis; one fails its first attempt and is
	 * retried.
	 */
	static class Mailer {

		static final java.util.concurrent.CountDownLatch SENT = new java.util.concurrent.CountDownLatch(3);

		static final java.util.concurrent.atomic.AtomicInteger FLAKY_RUNS = new java.util.concurrent.atomic.AtomicInteger();

		@io.github.redislock.annotation.QueuedTask(queue = "jedis-mail-${random.uuid}", id = "#id")
		public void send(String id) {
			if (id.equals("flaky") && FLAKY_RUNS.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			SENT.countDown();
		}

	}

	static class Guarded {

		@DistributedLock(name = "jedis-boot", waitTime = "5s")
		public long run() {
			return LockContext.fencingToken();
		}

		@DistributedLock(name = "jedis-boot", waitTime = "5s")
		public java.util.concurrent.CompletableFuture<Long> runAsync() {
			return java.util.concurrent.CompletableFuture.completedFuture(LockContext.fencingToken());
		}

	}

}
