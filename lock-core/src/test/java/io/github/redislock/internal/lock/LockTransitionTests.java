package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiters are woken, and holds keep exactly what they promise, across the moments between
 * steady states: a pub/sub connection cut right before a release, a release that keeps
 * the lock for its hold-at-least, a holder whose lease outlives the waiter's, a renewal
 * that reaches Redis after a release, a shutdown. Each bound below is far under the
 * 30-second lease that a missed wake-up costs.
 */
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class LockTransitionTests {

	/** Generous; far below the 30 s lease a missed wake-up would cost. */
	private static final Duration WAKE_UP_BOUND = Duration.ofSeconds(6);

	private static final Duration LONG_LEASE = Duration.ofSeconds(30);

	private final RedisTarget redis;

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final String name;

	private final ExecutorService holderThread = Executors.newSingleThreadExecutor();

	private final ExecutorService waiterThread = Executors.newSingleThreadExecutor();

	LockTransitionTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.templates = new LockTemplates(this.redis);
		this.raw = this.redis.template();
		this.name = this.redis.lockName("transition-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.holderThread.shutdownNow();
		this.waiterThread.shutdownNow();
		this.templates.close();
	}

	@Test
	void aReleaseRightAfterThePubSubConnectionWasCutStillWakesTheWaiter() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create(LONG_LEASE);
		DefaultRedisLockTemplate waiter = this.templates.create(LONG_LEASE);
		for (int round = 0; round < 3; round++) {
			RedisLock held = holder.getLock(this.name);
			assertThat(this.holderThread.submit(() -> held.tryLock(Duration.ZERO, null)).get()).isTrue();
			Future<Long> got = waitFor(waiter.getLock(this.name));
			await().atMost(WAKE_UP_BOUND).until(() -> LockRecords.hasWaiters(this.raw, lockKey()));
			killPubSubConnections();
			long released = System.nanoTime();
			this.holderThread.submit(held::unlock).get();
			long gotAt = got.get(LONG_LEASE.toSeconds() + 10, TimeUnit.SECONDS);
			assertThat(Duration.ofNanos(gotAt - released)).as("hand-off after the cut, round " + round)
				.isLessThan(WAKE_UP_BOUND);
		}
	}

	@Test
	void aHoldAtLeastReleaseWakesTheWaitersOfOtherInstancesWhenTheHoldEnds() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create(LONG_LEASE);
		DefaultRedisLockTemplate waiter = this.templates.create(LONG_LEASE);
		handedOverWhenTheHoldAtLeastEnds(holder.getLock(this.name), waiter.getLock(this.name),
				() -> LockRecords.hasWaiters(this.raw, lockKey()));
	}

	@Test
	void aHoldAtLeastReleaseOfTheWriteSideWakesReadersOfOtherInstancesWhenTheHoldEnds() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create(LONG_LEASE);
		DefaultRedisLockTemplate waiter = this.templates.create(LONG_LEASE);
		LockKeys.ReadWriteKeys keys = new LockKeys("redislock").readWriteKeys(this.name);
		handedOverWhenTheHoldAtLeastEnds(holder.getReadWriteLock(this.name).writeLock(),
				waiter.getReadWriteLock(this.name).readLock(), () -> this.raw.hasKey(keys.waiters()));
	}

	/**
	 * The holder takes the lock with a 2 s hold-at-least and releases it as soon as the
	 * waiter (of another instance) waits: the waiter gets it when the 2 s end, not when
	 * the lease it saw would.
	 */
	private void handedOverWhenTheHoldAtLeastEnds(RedisLock holderLock, RedisLock waiterLock,
			java.util.concurrent.Callable<Boolean> waiting) throws Exception {
		RedisLock held = holderLock.withHoldAtLeast(Duration.ofSeconds(2));
		assertThat(this.holderThread.submit(() -> held.tryLock(Duration.ZERO, null)).get()).isTrue();
		long acquired = System.nanoTime();
		Future<Long> got = waitFor(waiterLock);
		await().atMost(WAKE_UP_BOUND).until(waiting);
		this.holderThread.submit(held::unlock).get();
		long gotAt = got.get(LONG_LEASE.toSeconds() + 10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(gotAt - acquired)).as("kept for 2 s, then handed over")
			.isGreaterThanOrEqualTo(Duration.ofMillis(1500))
			.isLessThan(Duration.ofSeconds(2).plus(WAKE_UP_BOUND));
	}

	/**
	 * The waiter's own lease is short; the holder's is long: the waiter's "someone waits"
	 * sign must outlive the holder's lease, not its own, or the release says nothing.
	 */
	@Test
	void aSemaphoreWaiterWithAShortLeaseIsToldOfAReleaseByAHolderWithALongOne() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create(LONG_LEASE);
		DefaultRedisLockTemplate waiter = this.templates.create(LONG_LEASE);
		SemaphorePermit permit = holder.getSemaphore(this.name, 1).tryAcquire(Duration.ZERO, LONG_LEASE).orElseThrow();
		Duration waiterLease = Duration.ofMillis(500);
		Future<Long> got = this.waiterThread.submit(() -> {
			Optional<SemaphorePermit> taken = waiter.getSemaphore(this.name, 1)
				.tryAcquire(Duration.ofSeconds(40), waiterLease);
			long at = System.nanoTime();
			taken.orElseThrow().close();
			return at;
		});
		LockKeys.SemaphoreKeys keys = new LockKeys("redislock").semaphoreKeys(this.name);
		await().atMost(WAKE_UP_BOUND).until(() -> this.raw.hasKey(keys.waiters()));
		// Longer than the waiter's own lease: the sign it left must still be there.
		await().pollDelay(waiterLease.multipliedBy(3)).atMost(WAKE_UP_BOUND).until(() -> true);
		long released = System.nanoTime();
		permit.close();
		long gotAt = got.get(LONG_LEASE.toSeconds() + 10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(gotAt - released)).isLessThan(WAKE_UP_BOUND);
	}

	/**
	 * The waiter's template is stopped (a graceful shutdown while requests are still in
	 * flight) while one of its threads waits: that thread must still hear the release.
	 */
	@Test
	void aThreadStillWaitingWhenItsTemplateStopsHearsTheRelease() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create(LONG_LEASE);
		DefaultRedisLockTemplate waiter = this.templates.create(LONG_LEASE);
		RedisLock held = holder.getLock(this.name);
		assertThat(this.holderThread.submit(() -> held.tryLock(Duration.ZERO, null)).get()).isTrue();
		Future<Long> got = waitFor(waiter.getLock(this.name));
		await().atMost(WAKE_UP_BOUND)
			.until(() -> LockRecords.hasWaiters(this.raw, lockKey()) && waiter.signals().waiterCount() == 1);
		waiter.stop();
		long released = System.nanoTime();
		this.holderThread.submit(held::unlock).get();
		long gotAt = got.get(LONG_LEASE.toSeconds() + 10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(gotAt - released)).as("hand-off to a thread waiting across stop()")
			.isLessThan(WAKE_UP_BOUND);
	}

	/**
	 * A renewal sent before a hold-at-least release but run after it (the watchdog's
	 * batch was on its way) must not stretch the kept hold back to a whole lease.
	 */
	@Test
	void aRenewalThatArrivesAfterAHoldAtLeastReleaseDoesNotReviveTheHold() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create(LONG_LEASE);
		RedisReadWriteLock readWrite = holder.getReadWriteLock(this.name);
		LockKeys.ReadWriteKeys rwKeys = new LockKeys("redislock").readWriteKeys(this.name);
		String exclusiveKey = lockKey();
		for (String key : List.of(exclusiveKey, rwKeys.write(), rwKeys.readers())) {
			RedisLock lock = key.equals(exclusiveKey) ? holder.getLock(this.name)
					: key.equals(rwKeys.write()) ? readWrite.writeLock() : readWrite.readLock();
			RedisLock kept = lock.withHoldAtLeast(Duration.ofSeconds(3));
			assertThat(kept.tryLock(Duration.ZERO, null)).isTrue();
			LockHold hold = holder.holds().get(key, DefaultRedisLockTemplate.currentThreadId());
			assertThat(hold).isNotNull();
			kept.unlock();
			boolean[] renewed = holder.commands().renew(List.of(key), List.of(hold.owner()), LONG_LEASE.toMillis());
			assertThat(renewed[0]).as("the renewal of a kept hold of " + key).isFalse();
			Long ttl = key.equals(exclusiveKey) ? LockRecords.leaseLeftMillis(this.raw, key)
					: this.raw.getExpire(key, TimeUnit.MILLISECONDS);
			assertThat(ttl).as("time to live of " + key).isPositive().isLessThanOrEqualTo(3000);
			// Free again for the next round.
			await().atMost(WAKE_UP_BOUND)
				.until(() -> key.equals(rwKeys.readers()) ? isEmptyReaders(key)
						: key.equals(exclusiveKey) ? !LockRecords.isHeld(this.raw, key) : !this.raw.hasKey(key));
		}
	}

	private boolean isEmptyReaders(String key) {
		Long count = this.raw.opsForZSet().count(key, System.currentTimeMillis(), Double.POSITIVE_INFINITY);
		return count != null && count == 0;
	}

	/**
	 * At shutdown, the holds still held are released (a hold-at-least kept for what
	 * remains of it); the watchdog must stop renewing them there and then, not at
	 * {@code destroy()}.
	 */
	@Test
	void aHoldKeptAtShutdownEndsWithItsHoldAtLeastNotAWholeLeaseLater() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create(Duration.ofMillis(1500));
		RedisLock lock = holder.getLock(this.name).withHoldAtLeast(Duration.ofSeconds(1));
		assertThat(this.holderThread.submit(() -> lock.tryLock(Duration.ZERO, null)).get()).isTrue();
		long acquired = System.nanoTime();
		holder.stop();
		// The watchdog ticks every half second meanwhile: it must leave the kept hold
		// alone.
		await().atMost(WAKE_UP_BOUND).until(() -> !LockRecords.isHeld(this.raw, lockKey()));
		assertThat(Duration.ofNanos(System.nanoTime() - acquired)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
		await().pollDelay(Duration.ofSeconds(1))
			.atMost(WAKE_UP_BOUND)
			.until(() -> !LockRecords.isHeld(this.raw, lockKey()));
	}

	/**
	 * One acquirer leaves the read-write lock's "someone waits" sign for as long as what
	 * it waits for; another, acquiring with a short lease while its instance has waiters,
	 * must not cut that sign short.
	 */
	@Test
	void anAcquirerDoesNotShortenTheWaitersSignAnotherWaiterLeft() {
		DefaultRedisLockTemplate instance = this.templates.create(LONG_LEASE);
		LockKeys.ReadWriteKeys keys = new LockKeys("redislock").readWriteKeys(this.name);
		String owner = instance.ownerId(1);
		this.raw.opsForValue().set(keys.waiters(), "1", Duration.ofSeconds(30));
		long token = instance.readWriteCommands().acquire(keys, false, owner, 1000, false, true, "m");
		assertThat(token).isPositive();
		assertThat(this.raw.getExpire(keys.waiters(), TimeUnit.MILLISECONDS)).isGreaterThan(20_000);
		LockKeys.SemaphoreKeys permits = new LockKeys("redislock").semaphoreKeys(this.name);
		this.raw.opsForValue().set(permits.waiters(), "1", Duration.ofSeconds(30));
		assertThat(instance.commands()
			.acquiring(instance.commands().acquirePermitCall(permits, owner, 1000, 1, false, true, "m"))).isPositive();
		assertThat(this.raw.getExpire(permits.waiters(), TimeUnit.MILLISECONDS)).isGreaterThan(20_000);
	}

	/** Wait for the lock; answer when it was acquired (nanoTime), then release it. */
	private Future<Long> waitFor(RedisLock lock) {
		return this.waiterThread.submit(() -> {
			assertThat(lock.tryLock(Duration.ofSeconds(40), null)).isTrue();
			long at = System.nanoTime();
			lock.unlock();
			return at;
		});
	}

	private String lockKey() {
		return "redislock:{" + this.name + "}";
	}

	/**
	 * Cut every pub/sub connection of the server that holds the lock, as a load balancer
	 * or an output buffer limit does.
	 */
	private void killPubSubConnections() {
		if (this.redis instanceof RedisCluster cluster) {
			cluster.onNode(RedisCluster.masterOf(this.name),
					(commands) -> commands.clientKill(KillArgs.Builder.typePubsub()));
			return;
		}
		RedisServer server = (RedisServer) this.redis;
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			connection.sync().clientKill(KillArgs.Builder.typePubsub());
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

}
