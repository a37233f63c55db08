package io.github.redislock.faults;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockLostEvent;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.CommandCounter;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What the locks survive: frozen and killed holders in processes of their own, a frozen
 * or restarted Redis, a network that delays, swallows or cuts, and commands the client
 * sends twice. Each test names the property it proves.
 */
@ExtendWith(RedisExtension.class)
class LockFaultTests {

	private final RedisServers servers;

	private final LocalRedisServer redis;

	private final StringRedisTemplate raw;

	private final String name = "fault-" + UUID.randomUUID();

	private final List<DefaultRedisLockTemplate> templates = new CopyOnWriteArrayList<>();

	private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();

	LockFaultTests(RedisServers servers) {
		this.servers = servers;
		this.redis = servers.start();
		this.raw = this.redis.template();
	}

	@AfterEach
	void close() throws Exception {
		for (DefaultRedisLockTemplate template : this.templates) {
			template.destroy();
		}
	}

	/**
	 * A started connection factory whose commands time out after 300 ms, so that a frozen
	 * Redis shows up quickly; the test destroys it.
	 */
	private LettuceConnectionFactory timingOutFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(300)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private DefaultRedisLockTemplate template(RedisConnectionFactory connectionFactory, Duration leaseTime) {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(connectionFactory,
				LockSettings.DEFAULTS.withLeaseTime(leaseTime));
		template.setLockLostListener(this.lost::add);
		this.templates.add(template);
		return template;
	}

	/**
	 * Take the lock on another thread, run {@code beforeRelease}, then release it while
	 * the proxy swallows the answer; once the release has run, cut the connections, so
	 * that Lettuce sends the release again on the new one.
	 */
	private void holdThenReleaseWithTheAnswerLost(TcpProxy proxy, RedisLock lock, Runnable beforeRelease)
			throws Exception {
		CompletableFuture<Long> held = new CompletableFuture<>();
		CompletableFuture<Void> released = CompletableFuture.runAsync(() -> {
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			held.complete(lock.fencingToken());
			beforeRelease.run();
			proxy.dropReplies();
			lock.unlock();
		});
		held.get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !Boolean.TRUE.equals(LockRecords.isHeld(this.raw, lockKey())));
		proxy.heal();
		proxy.cutConnections();
		released.get(30, TimeUnit.SECONDS);
	}

	private String lockKey() {
		return "redislock:{" + this.name + "}";
	}

	@Test
	@Tag("slow-fault")
	void holderFrozenPastItsLeaseLearnsItLostTheLockAndItsLateWriteIsRefused() {
		LockHistory history = new LockHistory();
		FencedResource resource = new FencedResource(this.raw, this.name);
		long lease = 2000;
		try (ChildJvm child = ChildJvm.start(LockHolderProcess.class, Integer.toString(this.redis.port()), this.name,
				Long.toString(lease), "fixed")) {
			child.await("READY", Duration.ofSeconds(60));
			child.send("ACQUIRE");
			String[] held = child.await("HELD", Duration.ofSeconds(30));
			long childToken = Long.parseLong(held[0]);
			long childSent = Long.parseLong(held[1]);
			long childReturned = Long.parseLong(held[2]);
			child.pause();
			RedisLock lock = template(this.redis.connectionFactory(), Duration.ofSeconds(30)).getLock(this.name);
			assertThat(lock.tryLock(Duration.ofSeconds(30), null)).as("taken over once the lease ran out").isTrue();
			long from = LockHistory.nowMicros();
			assertThat(resource.write("test", lock.fencingToken(), "new")).isTrue();
			child.resume();
			assertThat(child.await("LOST", Duration.ofSeconds(10))).containsExactly(this.name,
					Long.toString(childToken));
			child.send("WRITE stale");
			assertThat(child.await("WRITE", Duration.ofSeconds(10))).containsExactly("refused", "held=false");
			child.send("RELEASE");
			assertThat(child.await("RELEASE-LOST", Duration.ofSeconds(10))).isNotEmpty();
			assertThat(lock.isHeldByCurrentThread()).as("the new owner keeps its lock").isTrue();
			long token = lock.fencingToken();
			history.held("test", this.name, token, from, LockHistory.nowMicros());
			lock.unlock();
			// The child believed it held the lock until its local deadline at the latest.
			history.held("child", this.name, childToken, childReturned, childSent + lease * 1000);
		}
		resource.copyLogTo(history);
		assertThat(resource.value()).isEqualTo("new");
		assertThat(history.violations()).isEmpty();
	}

	@Test
	@Tag("slow-fault")
	void holderKilledWithSigkillFreesTheLockWithinItsLease() {
		long lease = 1500;
		try (ChildJvm child = ChildJvm.start(LockHolderProcess.class, Integer.toString(this.redis.port()), this.name,
				Long.toString(lease), "watchdog")) {
			child.await("READY", Duration.ofSeconds(60));
			child.send("ACQUIRE");
			child.await("HELD", Duration.ofSeconds(30));
			long renewedPast = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * lease);
			await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - renewedPast > 0);
			assertThat(LockRecords.isHeld(this.raw, lockKey())).as("the watchdog kept it past two leases").isTrue();
			child.kill();
			long killed = System.nanoTime();
			RedisLock lock = template(this.redis.connectionFactory(), Duration.ofSeconds(30)).getLock(this.name);
			assertThat(lock.tryLock(Duration.ofSeconds(30), null)).isTrue();
			long freedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
			assertThat(freedAfter).as("free within lease + margin").isLessThan(lease + 3000);
			lock.unlock();
		}
	}

	@Test
	@Tag("slow-fault")
	void redisFrozenDuringAcquireTimesTheCallerOutCleanlyAndARetryDoesNotDoubleTheHold() {
		LettuceConnectionFactory timingOut = timingOutFactory();
		try {
			RedisLock lock = template(timingOut, Duration.ofSeconds(2)).getLock(this.name);
			this.redis.pause();
			long start = System.nanoTime();
			try {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> lock.tryLock(Duration.ofSeconds(1), null))
					.withMessageContaining("Redis is unreachable or did not answer")
					.withMessageContaining(this.name);
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
				assertThat(lock.isHeldByCurrentThread()).isFalse();
			}
			finally {
				this.redis.resume();
			}
			// The acquire sent into the frozen server may run now; it is undone, or lasts
			// one lease.
			Long ttl = LockRecords.leaseLeftMillis(this.raw, lockKey());
			assertThat(ttl).isLessThanOrEqualTo(2000);
			assertThat(lock.tryLock(Duration.ofSeconds(5), null)).isTrue();
			lock.unlock();
			assertThat(LockRecords.isHeld(this.raw, lockKey())).as("one unlock frees it: the hold was not doubled")
				.isFalse();
		}
		finally {
			timingOut.destroy();
		}
	}

	@Test
	void releaseDelayedPastTheLeaseNeverDeletesTheNewOwnersLock() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			RedisLock slow = template(proxy.connectionFactory(), Duration.ofSeconds(30)).getLock(this.name);
			RedisLock next = template(this.redis.connectionFactory(), Duration.ofSeconds(30)).getLock(this.name);
			CompletableFuture<Boolean> held = new CompletableFuture<>();
			CompletableFuture<Void> release = CompletableFuture.runAsync(() -> {
				held.complete(slow.tryLock(Duration.ZERO, Duration.ofMillis(500)));
				proxy.delayRequests(Duration.ofMillis(1500));
				slow.unlock();
			});
			assertThat(held.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(next.tryLock(Duration.ofSeconds(10), null)).isTrue();
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> release.get(30, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockLostException.class)
				.withMessageContaining("another owner held it when released");
			assertThat(next.isHeldByCurrentThread()).isTrue();
			assertThat(LockRecords.isHeld(this.raw, lockKey())).as("the new owner's lock is still there").isTrue();
			next.unlock();
		}
	}

	@Test
	void blackHoledNetworkRaisesLossByTheLocalDeadlineAndInterruptsTheHolderWhenAskedTo() {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			DefaultRedisLockTemplate template = template(proxy.connectionFactory(), Duration.ofMillis(900));
			template.setInterruptOnLockLost(true);
			RedisLock lock = template.getLock(this.name);
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			proxy.blackHole();
			long start = System.nanoTime();
			boolean interrupted = false;
			try {
				Thread.sleep(30_000);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
			long detectedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(interrupted).isTrue();
			assertThat(detectedAfter).as("the lease (900ms) plus one check, not a command timeout").isLessThan(5000);
			// The holder is interrupted by the watchdog; the event is published off that
			// thread.
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.lost).singleElement()
					.satisfies((event) -> assertThat(event.getLockName()).isEqualTo(this.name)));
			assertThat(LockContext.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(LockContext::ensureHeld);
			proxy.heal();
			proxy.cutConnections();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		}
	}

	@Test
	@Tag("slow-fault")
	void redisRestartedEmptyWhileLocksAreHeldIsFoundWithinARenewalAndTokensKeepIncreasing() {
		DefaultRedisLockTemplate template = template(this.redis.connectionFactory(), Duration.ofMillis(1500));
		RedisLock lock = template.getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		long before = lock.fencingToken();
		this.redis.kill();
		LocalRedisServer restarted = this.servers.restart(this.redis);
		long start = System.nanoTime();
		await().atMost(Duration.ofSeconds(20)).until(() -> !this.lost.isEmpty());
		long detectedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertThat(detectedAfter).as("within a renewal period (500ms) plus reconnecting").isLessThan(10_000);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		RedisLock again = template(restarted.connectionFactory(), Duration.ofMillis(1500)).getLock(this.name);
		assertThat(again.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(again.fencingToken()).as("the clock part keeps tokens increasing").isGreaterThan(before);
		again.unlock();
	}

	@Test
	void acquireThatTheClientSendsAgainAfterAReconnectCountsOneHold() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			RedisLock lock = template(proxy.connectionFactory(), Duration.ofSeconds(30)).getLock(this.name);
			CommandCounter counter = new CommandCounter(this.redis);
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			lock.unlock();
			long evalsBefore = counter.calls("evalsha", "eval");
			proxy.dropReplies();
			CompletableFuture<Long> acquired = CompletableFuture.supplyAsync(() -> {
				assertThat(lock.tryLock(Duration.ofSeconds(30), null)).isTrue();
				long token = lock.fencingToken();
				lock.unlock();
				return token;
			});
			// The script ran, its answer is lost; the connection is cut, Lettuce
			// reconnects and sends the same acquire again.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> Boolean.TRUE.equals(LockRecords.isHeld(this.raw, lockKey())));
			String token = (String) LockRecords.token(this.raw, lockKey());
			proxy.heal();
			proxy.cutConnections();
			assertThat(acquired.get(30, TimeUnit.SECONDS)).as("the same hold, the same token")
				.isEqualTo(Long.parseLong(token));
			assertThat(counter.calls("evalsha", "eval") - evalsBefore).as("acquire twice, release once").isEqualTo(3);
			assertThat(LockRecords.isHeld(this.raw, lockKey())).as("one unlock freed it").isFalse();
		}
	}

	@Test
	void releaseThatTheClientSendsAgainAfterAReconnectIsRecognisedAndChangesNothing() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			RedisLock lock = template(proxy.connectionFactory(), Duration.ofSeconds(30)).getLock(this.name);
			CommandCounter counter = new CommandCounter(this.redis);
			// Scripts cached first: a NOSCRIPT answer would be swallowed too.
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			lock.unlock();
			long evalsBefore = counter.calls("evalsha", "eval");
			holdThenReleaseWithTheAnswerLost(proxy, lock, () -> {
			});
			assertThat(counter.calls("evalsha", "eval") - evalsBefore).as("acquire once, the release twice")
				.isEqualTo(3);
			assertThat(this.lost).as("and was not taken for a lost lock").isEmpty();
		}
	}

	@Test
	void extendThatTheClientSendsAgainAfterAReconnectStillAnswersHeld() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			RedisLock lock = template(proxy.connectionFactory(), Duration.ofSeconds(30)).getLock(this.name);
			CommandCounter counter = new CommandCounter(this.redis);
			// Scripts cached first: a NOSCRIPT answer would be swallowed too.
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			assertThat(lock.extend(Duration.ofSeconds(30))).isTrue();
			lock.unlock();
			CompletableFuture<Boolean> extended = new CompletableFuture<>();
			CompletableFuture<Void> held = new CompletableFuture<>();
			CompletableFuture<Void> repliesDropped = new CompletableFuture<>();
			CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
				// A fixed lease: no renewal among the counted calls.
				assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(30))).isTrue();
				held.complete(null);
				repliesDropped.join();
				extended.complete(lock.extend(Duration.ofMinutes(2)));
				lock.unlock();
			});
			held.get(10, TimeUnit.SECONDS);
			long evalsBefore = counter.calls("evalsha", "eval");
			proxy.dropReplies();
			repliesDropped.complete(null);
			// The extension ran, its answer is lost; the connection is cut, Lettuce
			// reconnects and sends the same extension again.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> LockRecords.leaseLeftMillis(this.raw, lockKey()) > 60_000);
			proxy.heal();
			proxy.cutConnections();
			assertThat(extended.get(30, TimeUnit.SECONDS)).as("still held after the second run").isTrue();
			done.get(30, TimeUnit.SECONDS);
			assertThat(counter.calls("evalsha", "eval") - evalsBefore).as("the extension twice, the release once")
				.isEqualTo(3);
			assertThat(LockRecords.isHeld(this.raw, lockKey())).isFalse();
			assertThat(this.lost).as("and was not taken for a lost lock").isEmpty();
		}
	}

	@Test
	void releaseSentAgainAfterAHoldLongerThanTheFencingCounterIsKeptIsStillRecognised() throws Exception {
		// The last token lives in the lock's own key, which outlives every hold by the
		// retention (renewals push both): a long hold cannot outlive the record its
		// re-sent release looks for, as the separate counter of the previous layout
		// could.
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			RedisLock lock = template(proxy.connectionFactory(), Duration.ofSeconds(30)).getLock(this.name);
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			lock.unlock();
			holdThenReleaseWithTheAnswerLost(proxy, lock,
					() -> assertThat(this.raw.getExpire(lockKey(), TimeUnit.MILLISECONDS))
						.as("the key outlives the hold by the retention")
						.isGreaterThan(LockRecords.leaseLeftMillis(this.raw, lockKey()) + 59_000));
			assertThat(this.lost).as("the re-sent release is not taken for a lost lock").isEmpty();
		}
	}

	@Test
	void reacquisitionAfterAFailedReleaseGetsANewLargerToken() throws Exception {
		try (TcpProxy proxy = TcpProxy.to(this.redis)) {
			LettuceConnectionFactory timingOut = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(500)).build());
			timingOut.afterPropertiesSet();
			timingOut.start();
			try {
				RedisLock lock = template(timingOut, Duration.ofSeconds(30)).getLock(this.name);
				assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
				long first = lock.fencingToken();
				// The release never reaches Redis: the hold stays there under an owner id
				// that no thread uses any more.
				proxy.blackHole();
				assertThatExceptionOfType(RuntimeException.class).isThrownBy(lock::unlock);
				proxy.heal();
				proxy.cutConnections();
				long start = System.nanoTime();
				assertThat(lock.tryLock(Duration.ofSeconds(20), null)).isTrue();
				long second = lock.fencingToken();
				lock.unlock();
				assertThat(second).as("a new hold, a new token").isGreaterThan(first);
				assertThat(Duration.ofNanos(System.nanoTime() - start))
					.as("the failed release was sent again, not waited out for a lease")
					.isLessThan(Duration.ofSeconds(5));
			}
			finally {
				timingOut.destroy();
			}
		}
	}

	@Test
	void interruptDuringTheRetryPauseStillUndoesAnAcquireThatMayHaveLanded() throws Exception {
		LettuceConnectionFactory timingOut = timingOutFactory();
		try {
			RedisLock lock = template(timingOut, Duration.ofSeconds(30)).getLock(this.name);
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			lock.unlock();
			CompletableFuture<Thread> caller = new CompletableFuture<>();
			CompletableFuture<Throwable> outcome = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				caller.complete(Thread.currentThread());
				try {
					lock.tryLock(20, TimeUnit.SECONDS);
					outcome.complete(null);
				}
				catch (Throwable ex) {
					outcome.complete(ex);
				}
			});
			this.redis.pause();
			try {
				thread.start();
				// The first attempt is queued in the frozen Redis and times out; the
				// caller
				// pauses before trying again: interrupt it there.
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(1))
					.until(() -> java.util.Arrays.stream(thread.getStackTrace())
						.anyMatch((frame) -> frame.getMethodName().equals("pause")
								&& frame.getClassName().endsWith("AbstractRedisLock")));
				thread.interrupt();
				assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
			}
			finally {
				this.redis.resume();
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !Boolean.TRUE.equals(LockRecords.isHeld(this.raw, lockKey())));
		}
		finally {
			timingOut.destroy();
		}
	}

}
