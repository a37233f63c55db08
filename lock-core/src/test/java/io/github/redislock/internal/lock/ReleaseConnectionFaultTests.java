package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.faults.LockWaiterProcess;
import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.TcpProxy;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The release connection and the release path through faults of the network between an
 * instance and Redis: a release that timed out but ran later, a connection that swallows
 * everything, a reconnect under way when another waiter arrives, and the timers that
 * asynchronous calls leave behind.
 */
@Tag("slow-fault")
@ExtendWith(RedisExtension.class)
class ReleaseConnectionFaultTests {

	private static final Duration WAKE_UP_BOUND = Duration.ofSeconds(6);

	private static final Duration LONG_LEASE = Duration.ofSeconds(30);

	private final LocalRedisServer redis;

	private final StringRedisTemplate raw;

	private final String name = "release-fault-" + UUID.randomUUID();

	private final LockTemplates made;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	ReleaseConnectionFaultTests(RedisServers servers) {
		this.redis = servers.start();
		this.raw = this.redis.template();
		this.made = new LockTemplates(this.redis);
	}

	@AfterEach
	void close() throws Exception {
		this.threads.shutdownNow();
		this.made.close();
	}

	/**
	 * The holder's release runs but its answer is lost, so it times out: the releasing
	 * instance's own waiter must not sleep until the lease ends (the release message
	 * never wakes the instance that sent it).
	 */
	@Test
	void aReleaseThatTimedOutButRanWakesTheReleasingInstancesOwnWaiter() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			DefaultRedisLockTemplate instance = template(factory(proxy.host(), proxy.port(), Duration.ofMillis(300)));
			RedisLock lock = instance.getLock(this.name);
			// Once, so that Redis has the scripts: the release below runs at the first
			// try.
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			lock.unlock();
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			Future<Long> got = this.threads.submit(() -> {
				assertThat(lock.tryLock(Duration.ofSeconds(40), null)).isTrue();
				long at = System.nanoTime();
				lock.unlock();
				return at;
			});
			await().atMost(WAKE_UP_BOUND)
				.until(() -> LockRecords.hasWaiters(this.raw, lockKey()) && instance.signals().waiterCount() == 1
						&& pubSubClients() == 1);
			// The release runs, its answer (and message) never arrive: it times out.
			proxy.dropReplies();
			long released = System.nanoTime();
			try {
				lock.unlock();
			}
			catch (RuntimeException ex) {
				// Timed out, though it ran.
			}
			proxy.heal();
			// A lost answer leaves the command connection out of step: it reconnects. The
			// pub/sub connection stays as it is (it missed the release message).
			proxy.cutCommandConnections();
			long gotAt = got.get(LONG_LEASE.toSeconds() + 10, TimeUnit.SECONDS);
			assertThat(Duration.ofNanos(gotAt - released)).isLessThan(WAKE_UP_BOUND);
		}
	}

	/**
	 * A release connection that silently loses everything (a half-open TCP connection
	 * behind a load balancer) is found by its keepalive PING; the waiters then try again,
	 * and the instance listens on a new connection.
	 */
	@Test
	void aBlackHoledReleaseConnectionIsNoticedAndItsWaitersRetry() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			DefaultRedisLockTemplate holder = template(this.redis.connectionFactory());
			DefaultRedisLockTemplate waiter = template(factory(proxy.host(), proxy.port(), Duration.ofSeconds(1)));
			RedisLock held = holder.getLock(this.name);
			ExecutorService holderThread = Executors.newSingleThreadExecutor();
			try {
				assertThat(holderThread.submit(() -> held.tryLock(Duration.ZERO, null)).get()).isTrue();
				Future<Long> got = this.threads.submit(() -> {
					RedisLock lock = waiter.getLock(this.name);
					assertThat(lock.tryLock(Duration.ofSeconds(40), null)).isTrue();
					long at = System.nanoTime();
					lock.unlock();
					return at;
				});
				await().atMost(WAKE_UP_BOUND)
					.until(() -> waiter.signals().listeningCount() == 1 && LockRecords.hasWaiters(this.raw, lockKey()));
				// The release message is lost on a connection that says nothing any more.
				proxy.silenceSubscribers();
				long released = System.nanoTime();
				holderThread.submit(held::unlock).get();
				long gotAt = got.get(LONG_LEASE.toSeconds() + 10, TimeUnit.SECONDS);
				assertThat(Duration.ofNanos(gotAt - released)).isLessThan(WAKE_UP_BOUND);
			}
			finally {
				holderThread.shutdownNow();
			}
		}
	}

	/**
	 * A waiter that arrives while the release connection reconnects shares it: no second
	 * pub/sub connection is opened, and none is left behind once the template is gone.
	 */
	@Test
	void aWaiterArrivingWhileTheReleaseConnectionReconnectsOpensNoSecondOne() throws Exception {
		// The client waits 3 s before it reconnects: a window in which a new waiter
		// comes.
		ClientResources slowReconnects = ClientResources.builder()
			.reconnectDelay(Delay.constant(Duration.ofSeconds(3)))
			.build();
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			DefaultRedisLockTemplate holder = template(this.redis.connectionFactory());
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
					LettuceClientConfiguration.builder()
						.commandTimeout(Duration.ofSeconds(1))
						.clientResources(slowReconnects)
						.build());
			DefaultRedisLockTemplate waiter = template(this.made.started(factory));
			String other = this.name + "-other";
			RedisLock heldA = holder.getLock(this.name);
			RedisLock heldB = holder.getLock(other);
			ExecutorService holderThread = Executors.newSingleThreadExecutor();
			try {
				assertThat(holderThread
					.submit(() -> heldA.tryLock(Duration.ZERO, null) && heldB.tryLock(Duration.ZERO, null))
					.get()).isTrue();
				Future<Boolean> first = this.threads
					.submit(() -> waiter.getLock(this.name).tryLock(Duration.ofSeconds(40), null));
				await().atMost(WAKE_UP_BOUND)
					.until(() -> pubSubClients() == 1 && waiter.signals().listeningCount() == 1);
				// Only the pub/sub connection: the waiter's commands still get through.
				proxy.cutSubscriberConnections();
				await().atMost(WAKE_UP_BOUND).until(() -> pubSubClients() == 0);
				Future<Boolean> second = this.threads
					.submit(() -> waiter.getLock(other).tryLock(Duration.ofSeconds(40), null));
				await().atMost(WAKE_UP_BOUND).until(() -> waiter.signals().listeningCount() == 2);
				holderThread.submit(() -> {
					heldA.unlock();
					heldB.unlock();
				}).get();
				assertThat(first.get(WAKE_UP_BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
				assertThat(second.get(WAKE_UP_BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
				await().during(Duration.ofSeconds(4))
					.atMost(WAKE_UP_BOUND.plusSeconds(4))
					.until(() -> pubSubClients() <= 1);
				waiter.stop();
				waiter.destroy();
				await().atMost(WAKE_UP_BOUND).until(() -> pubSubClients() == 0);
				await().during(Duration.ofSeconds(4))
					.atMost(WAKE_UP_BOUND.plusSeconds(4))
					.until(() -> pubSubClients() == 0);
			}
			finally {
				holderThread.shutdownNow();
			}
		}
		finally {
			slowReconnects.shutdown();
		}
	}

	/**
	 * A shutdown while Redis does not answer (a node killed in a failover, a hung one)
	 * waits a few seconds in all for the releases of its holds, not a command timeout per
	 * hold; the releases run when Redis answers again.
	 */
	@Test
	void aShutdownWhileRedisDoesNotAnswerIsNotHeldUpByEachHoldsRelease() throws Exception {
		DefaultRedisLockTemplate instance = template(
				factory(this.redis.host(), this.redis.port(), Duration.ofSeconds(20)));
		ExecutorService holder = Executors.newSingleThreadExecutor();
		try {
			assertThat(holder.submit(() -> {
				for (int i = 0; i < 3; i++) {
					if (!instance.getLock(this.name + "-" + i).tryLock(Duration.ZERO, null)) {
						return false;
					}
				}
				return true;
			}).get()).isTrue();
			this.redis.pause();
			long stopping = System.nanoTime();
			try {
				instance.stop();
			}
			finally {
				this.redis.resume();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - stopping)).as("stop() with Redis frozen")
				.isLessThan(Duration.ofSeconds(15));
			// Sent before the stop returned: they run once Redis answers again.
			await().atMost(WAKE_UP_BOUND)
				.until(() -> !LockRecords.isHeld(this.raw, "redislock:{" + this.name + "-0}")
						&& !LockRecords.isHeld(this.raw, "redislock:{" + this.name + "-1}")
						&& !LockRecords.isHeld(this.raw, "redislock:{" + this.name + "-2}"));
			holder.submit(() -> {
				for (int i = 0; i < 3; i++) {
					RedisLock lock = instance.getLock(this.name + "-" + i);
					assertThat(lock.isHeldByCurrentThread()).as("released at shutdown").isFalse();
					try {
						lock.unlock();
					}
					catch (RuntimeException ex) {
						// Reported lost: it was released when the template stopped.
					}
				}
			}).get();
		}
		finally {
			holder.shutdownNow();
		}
	}

	/**
	 * A template destroyed while its release channel's pub/sub connection is still being
	 * opened (a thread had just started to wait) gives the connect up when its threads
	 * are stopped: that is the shutdown, not Redis failing, and is not logged as an
	 * outage. The connection opens but its handshake is never answered, so the connect is
	 * reliably under way; the waiter runs in a JVM of its own whose engine logs through
	 * {@code java.util.logging}, which it reports.
	 */
	@Test
	void aTemplateDestroyedWhileItsReleaseConnectionOpensLogsNoOutage() throws Exception {
		DefaultRedisLockTemplate holder = template(this.redis.connectionFactory());
		RedisLock held = holder.getLock(this.name);
		assertThat(this.threads.submit(() -> held.tryLock(Duration.ZERO, null)).get()).isTrue();
		try (TcpProxy proxy = TcpProxy.to(this.redis);
				ChildJvm waiter = ChildJvm.start(LockWaiterProcess.JVM_OPTIONS, LockWaiterProcess.class,
						Integer.toString(proxy.port()), this.name)) {
			waiter.await("READY", Duration.ofSeconds(60));
			proxy.silenceNewConnections();
			waiter.send("WAIT");
			waiter.await("CONNECTING", Duration.ofSeconds(30));
			waiter.send("DESTROY");
			String[] warnings = waiter.await("DESTROYED", Duration.ofSeconds(30));
			assertThat(String.join(" ", warnings)).as("what the destroyed template's engine logged at WARN and above")
				.isEmpty();
		}
	}

	/**
	 * A permit's blocking {@code close()} through a connection that swallows everything
	 * (a command timeout of 1 s: its timer is a coarse one, {@link AsyncTimeouts}): the
	 * close fails within about that timeout, on the calling thread, and the permit is
	 * given back once Redis answers again (the release is sent again), so none leaks.
	 */
	@Test
	void aPermitClosedWhileRedisSwallowsEverythingFailsWithinItsTimeoutAndIsGivenBackLater() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			DefaultRedisLockTemplate instance = template(factory(proxy.host(), proxy.port(), Duration.ofSeconds(1)));
			RedisSemaphore semaphore = instance.getSemaphore(this.name, 1);
			SemaphorePermit permit = semaphore.tryAcquire(Duration.ZERO, LONG_LEASE).orElseThrow();
			assertThat(semaphore.availablePermits()).isZero();
			proxy.blackHole();
			long start = System.nanoTime();
			assertThatThrownBy(permit::close).isInstanceOf(RuntimeException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close() through a black hole")
				.isBetween(Duration.ofMillis(950), Duration.ofSeconds(5));
			assertThat(this.raw.opsForZSet().zCard(lockKey() + ":permits")).as("the permit, still in Redis")
				.isEqualTo(1);
			proxy.heal();
			proxy.cutCommandConnections();
			await().atMost(Duration.ofSeconds(40))
				.untilAsserted(() -> assertThat(this.raw.opsForZSet().zCard(lockKey() + ":permits"))
					.as("the permit, once the release was sent again")
					.isZero());
		}
	}

	/**
	 * Every asynchronous script call is timed; its timer must go when the answer came,
	 * not wait in the scheduler for the whole command timeout.
	 */
	@Test
	void asynchronousCallsLeaveNoTimersBehind() {
		DefaultRedisLockTemplate instance = template(this.redis.connectionFactory());
		RedisSemaphore semaphore = instance.getSemaphore(this.name, 4);
		for (int i = 0; i < 2000; i++) {
			semaphore.tryAcquire(Duration.ofSeconds(5), null).orElseThrow().close();
		}
		assertThat(AsyncTimeouts.pending()).as("timers still queued").isLessThan(100);
	}

	/** Clients in pub/sub mode, as the server counts them. */
	private long pubSubClients() {
		Object answer = this.raw.execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT",
				"LIST".getBytes(), "TYPE".getBytes(), "pubsub".getBytes()));
		String clients = (answer instanceof byte[] bytes) ? new String(bytes) : String.valueOf(answer);
		return clients.lines().filter((line) -> !line.isBlank()).count();
	}

	private DefaultRedisLockTemplate template(LettuceConnectionFactory factory) {
		return this.made.create(factory, LONG_LEASE);
	}

	private LettuceConnectionFactory factory(String host, int port, Duration commandTimeout) {
		return this.made.factory(host, port, commandTimeout);
	}

	private String lockKey() {
		return "redislock:{" + this.name + "}";
	}

}
