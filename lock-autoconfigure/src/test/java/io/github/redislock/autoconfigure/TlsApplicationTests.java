package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.ReleaseMessages;
import io.github.redislock.test.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The starter over TLS end to end: an application whose Redis speaks TLS only
 * ({@code --port 0 --tls-port}, certificates from a throw-away CA made at test time)
 * connects through Spring Boot's {@code spring.data.redis.ssl.bundle} with a PEM bundle
 * that trusts the CA, and locks, waits (release messages over TLS) and runs queued tasks.
 */
@ExtendWith(RedisExtension.class)
class TlsApplicationTests {

	/**
	 * Generous: a hand-off takes milliseconds; the fallback retry would take the lease.
	 */
	private static final Duration HANDOFF_BOUND = Duration.ofSeconds(2);

	static final Map<String, CountDownLatch> RAN = new ConcurrentHashMap<>();

	private static TestCertificates certificates;

	private final LocalRedisServer redis;

	private final ApplicationContextRunner runner;

	private final ExecutorService waiter = Executors.newSingleThreadExecutor();

	TlsApplicationTests(RedisServers servers) {
		this.redis = servers.startTls(certificates);
		this.runner = LockApplicationContextRunner.unconfigured()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.ssl.enabled=true",
					"spring.data.redis.ssl.bundle=test-ca", "spring.ssl.bundle.pem.test-ca.truststore.certificate=file:"
							+ certificates.caCertificate().toAbsolutePath());
	}

	@BeforeAll
	static void makeCertificates() {
		certificates = TestCertificates.create();
	}

	@AfterAll
	static void deleteCertificates() {
		certificates.close();
	}

	@AfterEach
	void stopWaiter() {
		this.waiter.shutdownNow();
	}

	/**
	 * The reverse mistake: a plain-text server takes the TLS client hello for the start
	 * of a command and never answers; the caller is told TLS may be on one side only.
	 */
	@Test
	void tlsConnectionToAPlainTextPortFailsNamingTheHandshake(RedisServers servers) {
		LocalRedisServer plainServer = servers.start();
		this.runner.withPropertyValues("spring.data.redis.port=" + plainServer.port(), "spring.data.redis.timeout=3s")
			.run((context) -> {
				RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> locks.execute("tls-to-plain", Duration.ZERO, null, () -> "ran"))
					.withMessageContaining("Redis is unreachable or did not answer")
					.withMessageContaining("TLS is on one side only (spring.data.redis.ssl.enabled must match");
			});
	}

	@Test
	void lockIsTakenAndReleasedOverTls() {
		StringRedisTemplate direct = this.redis.template();
		this.runner.run((context) -> {
			RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
			String name = "tls-" + UUID.randomUUID();
			String seen = locks.execute(name, Duration.ofSeconds(5), null,
					() -> String.valueOf(LockRecords.isHeld(direct, "redislock:{" + name + "}")));
			assertThat(seen).as("held in Redis while the work ran").isEqualTo("true");
			assertThat(LockRecords.isHeld(direct, "redislock:{" + name + "}")).as("released").isFalse();
		});
	}

	/**
	 * With a 30 second lease the fallback retry would take up to 30 seconds: a hand-off
	 * within {@link #HANDOFF_BOUND}, with the release message seen on the lock's channel
	 * over TLS, proves the waiter was woken by it.
	 */
	@Test
	void waiterIsWokenByTheReleaseMessageOverTls() throws Exception {
		StringRedisTemplate direct = this.redis.template();
		String name = "tls-wait-" + UUID.randomUUID();
		String key = "redislock:{" + name + "}";
		try (ReleaseMessages released = ReleaseMessages.listen(this.redis.connectionFactory(), key + ":released")) {
			this.runner.withPropertyValues("redislock.lease-time=30s").run((context) -> {
				RedisLock lock = context.getBean(RedisLockTemplate.class).getLock(name);
				lock.lock();
				long[] acquiredAt = new long[1];
				Future<Boolean> waiting = this.waiter.submit(() -> {
					RedisLock sameLock = context.getBean(RedisLockTemplate.class).getLock(name);
					boolean acquired = sameLock.tryLock(Duration.ofSeconds(25), null);
					acquiredAt[0] = System.nanoTime();
					if (acquired) {
						sameLock.unlock();
					}
					return acquired;
				});
				await().atMost(Duration.ofSeconds(10)).until(() -> LockRecords.hasWaiters(direct, key));
				long releasedAt = System.nanoTime();
				lock.unlock();
				assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
				assertThat(Duration.ofNanos(acquiredAt[0] - releasedAt)).isLessThan(HANDOFF_BOUND);
				await().atMost(Duration.ofSeconds(5)).until(() -> !released.messages().isEmpty());
			});
		}
	}

	/**
	 * Workers look for due tasks only once a minute here: a task that runs within seconds
	 * was announced to them on the queue's channel, over TLS.
	 */
	@Test
	void queuedTaskRunsToCompletionOverTls() {
		String id = UUID.randomUUID().toString();
		CountDownLatch ran = new CountDownLatch(1);
		RAN.put(id, ran);
		this.runner.withPropertyValues("redislock.queue.poll-interval=1m").withBean(Tasks.class).run((context) -> {
			context.getBean(Tasks.class).record(id);
			assertThat(ran.await(20, TimeUnit.SECONDS)).as("ran").isTrue();
		});
		RAN.remove(id);
	}

	/**
	 * The server closes a connection whose first bytes are no TLS handshake: the caller
	 * is told Redis did not answer and that a TLS-only server needs
	 * {@code spring.data.redis.ssl.enabled}.
	 */
	@Test
	void plainTextConnectionToTheTlsPortFailsNamingTheSslProperty() {
		ApplicationContextRunner plain = LockApplicationContextRunner.unconfigured()
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=3s");
		plain.run((context) -> {
			RedisLockTemplate locks = context.getBean(RedisLockTemplate.class);
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> locks.execute("plain", Duration.ZERO, null, () -> "ran"))
				.withMessageContaining("Failed to acquire lock 'plain'")
				.withMessageContaining("Redis is unreachable or did not answer")
				.withMessageContaining("if the server speaks TLS only, set spring.data.redis.ssl.enabled=true");
		});
	}

	/**
	 * RedLock nodes reached as {@code rediss://} URIs trust the bundle named by
	 * {@code redislock.redlock.ssl-bundle}: the lock is taken on a majority of them.
	 */
	@Test
	void redLockTakesItsLockOnTlsNodesTrustingTheNamedBundle(RedisServers servers) {
		List<LocalRedisServer> nodes = List.of(servers.startTls(certificates), servers.startTls(certificates),
				servers.startTls(certificates));
		String uris = String.join(",", nodes.stream().map(LocalRedisServer::uri).toList());
		assertThat(uris).startsWith("rediss://");
		this.runner.withConfiguration(AutoConfigurations.of(RedLockAutoConfiguration.class))
			.withPropertyValues("redislock.redlock.nodes=" + uris, "redislock.redlock.ssl-bundle=test-ca",
					"redislock.redlock.node-timeout=2s")
			.run((context) -> {
				RedisLockTemplate redlock = context.getBean("redLockTemplate", RedisLockTemplate.class);
				String name = "tls-redlock-" + UUID.randomUUID();
				String key = "redislock:{" + name + "}";
				long holding = redlock.execute(name, Duration.ofSeconds(5), null,
						() -> nodes.stream().filter((node) -> LockRecords.isHeld(node.template(), key)).count());
				assertThat(holding).as("nodes holding the lock").isGreaterThanOrEqualTo(2);
				assertThat(nodes.stream().filter((node) -> LockRecords.isHeld(node.template(), key)).count())
					.as("released")
					.isZero();
			});
	}

	@Test
	void redLockWhoseBundleDoesNotTrustTheNodesSaysTheNodesFailedTheirHandshake(RedisServers servers) {
		List<LocalRedisServer> nodes = List.of(servers.startTls(certificates), servers.startTls(certificates),
				servers.startTls(certificates));
		String uris = String.join(",", nodes.stream().map(LocalRedisServer::uri).toList());
		try (TestCertificates otherCa = TestCertificates.create()) {
			this.runner.withConfiguration(AutoConfigurations.of(RedLockAutoConfiguration.class))
				.withPropertyValues("redislock.redlock.nodes=" + uris, "redislock.redlock.ssl-bundle=other-ca",
						"redislock.redlock.node-timeout=2s",
						"spring.ssl.bundle.pem.other-ca.truststore.certificate=file:"
								+ otherCa.caCertificate().toAbsolutePath())
				.run((context) -> {
					RedisLockTemplate redlock = context.getBean("redLockTemplate", RedisLockTemplate.class);
					// Not contention: every node failed its handshake, and the error says
					// so.
					assertThatExceptionOfType(LockAcquisitionException.class)
						.isThrownBy(() -> redlock.execute("tls-untrusted-" + UUID.randomUUID(), Duration.ofMillis(500),
								null, () -> "never"))
						.withMessageContaining("3 of them did not answer")
						.withMessageContaining("redislock.redlock.ssl-bundle")
						.withStackTraceContaining("SSLHandshakeException");
				});
		}
	}

	@Test
	void redLockSslBundleThatDoesNotExistFailsTheStartNamingIt() {
		this.runner.withConfiguration(AutoConfigurations.of(RedLockAutoConfiguration.class))
			.withPropertyValues("redislock.redlock.nodes=rediss://127.0.0.1:1", "redislock.redlock.ssl-bundle=missing")
			.run((context) -> assertThat(context).getFailure().rootCause().hasMessageContaining("'missing'"));
	}

	static class Tasks {

		@QueuedTask(queue = "tls-tasks", id = "#id")
		public void record(String id) {
			CountDownLatch latch = RAN.get(id);
			if (latch != null) {
				latch.countDown();
			}
		}

	}

}
