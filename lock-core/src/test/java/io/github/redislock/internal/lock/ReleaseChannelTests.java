package io.github.redislock.internal.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each lock has a release channel of its own, and an instance listens on it only while
 * one of its threads waits for that lock: it receives the release messages of the locks
 * it waits for and of no other lock. On a Redis Cluster the channels are sharded
 * ({@code SSUBSCRIBE} on the node of the lock's slot), so release messages do not cross
 * the cluster bus.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class ReleaseChannelTests {

	/** Generous; far below the 30 s lease a missed message would cost. */
	private static final Duration WAKE_UP_BOUND = Duration.ofSeconds(5);

	private final RedisTarget redis;

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final String x;

	private final String y;

	private final ExecutorService holderThread = Executors.newSingleThreadExecutor();

	private final ExecutorService waiterThreads = Executors.newFixedThreadPool(2);

	ReleaseChannelTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.templates = new LockTemplates(this.redis);
		this.raw = this.redis.template();
		this.x = this.redis.lockName("channel-x-" + UUID.randomUUID());
		this.y = this.redis.lockName("channel-y-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.holderThread.shutdownNow();
		this.waiterThreads.shutdownNow();
		this.templates.close();
	}

	@Test
	void anInstanceHearsTheReleasesOfTheLocksItWaitsForAndNoOthers() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create();
		DefaultRedisLockTemplate waiterOfX = this.templates.create();
		DefaultRedisLockTemplate waiterOfY = this.templates.create();
		DefaultRedisLockTemplate bystander = this.templates.create();
		RedisLock heldX = holder.getLock(this.x);
		RedisLock heldY = holder.getLock(this.y);
		assertThat(
				this.holderThread.submit(() -> heldX.tryLock(Duration.ZERO, null) && heldY.tryLock(Duration.ZERO, null))
					.get())
			.isTrue();
		// The bystander has waited before, for another lock: it no longer listens.
		RedisLock other = bystander.getLock(this.redis.lockName("channel-other-" + UUID.randomUUID()));
		assertThat(other.tryLock(Duration.ofMillis(10), null)).isTrue();
		other.unlock();
		Future<Boolean> gotX = waitFor(waiterOfX.getLock(this.x));
		Future<Boolean> gotY = waitFor(waiterOfY.getLock(this.y));
		await().atMost(WAKE_UP_BOUND)
			.until(() -> subscribers(this.x) == 1 && subscribers(this.y) == 1
					&& LockRecords.isHeld(this.raw, lockKey(this.x))
					&& LockRecords.hasWaiters(this.raw, lockKey(this.y))
					&& LockRecords.hasWaiters(this.raw, lockKey(this.x)));
		assertThat(waiterOfX.signals().listeningCount()).isOne();
		assertThat(waiterOfY.signals().listeningCount()).isOne();
		assertThat(bystander.signals().listeningCount()).isZero();

		this.holderThread.submit(heldX::unlock).get();
		assertThat(gotX.get(WAKE_UP_BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		this.holderThread.submit(heldY::unlock).get();
		assertThat(gotY.get(WAKE_UP_BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

		assertThat(waiterOfX.signals().receivedCount()).as("the release of x, not that of y").isOne();
		assertThat(waiterOfY.signals().receivedCount()).as("the release of y, not that of x").isOne();
		assertThat(bystander.signals().receivedCount()).isZero();
		assertThat(holder.signals().receivedCount()).isZero();
		// Nobody waits any more: after a moment, nobody listens any more.
		await().atMost(WAKE_UP_BOUND).until(() -> subscribers(this.x) == 0 && subscribers(this.y) == 0);
		assertThat(waiterOfX.signals().listeningCount()).isZero();
		assertThat(waiterOfY.signals().listeningCount()).isZero();
	}

	@Test
	void manyWaitersOfOneInstanceShareOneSubscription() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create();
		DefaultRedisLockTemplate waiters = this.templates.create();
		RedisLock held = holder.getLock(this.x);
		assertThat(this.holderThread.submit(() -> held.tryLock(Duration.ZERO, null)).get()).isTrue();
		RedisLock lock = waiters.getLock(this.x);
		Future<Boolean> first = waitFor(lock);
		Future<Boolean> second = waitFor(lock);
		await().atMost(WAKE_UP_BOUND).until(() -> waiters.signals().waiterCount() == 2);
		await().atMost(WAKE_UP_BOUND).until(() -> subscribers(this.x) == 1);
		this.holderThread.submit(held::unlock).get();
		// One of them gets it, releases it, and wakes the other directly.
		assertThat(first.get(WAKE_UP_BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		assertThat(second.get(WAKE_UP_BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		await().atMost(WAKE_UP_BOUND).until(() -> subscribers(this.x) == 0);
		// The holder's release, received once for both waiters; and the release by the
		// first of them, which saw the other waiting, unless the other, woken in this
		// instance at once, had left the channel before that message came back (it wakes
		// nobody new either way).
		assertThat(waiters.signals().receivedCount()).isBetween(1L, 2L);
	}

	/** A waiter that holds the lock for a moment once it has it, then lets it go. */
	private Future<Boolean> waitFor(RedisLock lock) {
		return this.waiterThreads.submit(() -> {
			if (!lock.tryLock(Duration.ofSeconds(20), null)) {
				return false;
			}
			lock.unlock();
			return true;
		});
	}

	private static String lockKey(String name) {
		return "redislock:{" + name + "}";
	}

	/**
	 * How many clients listen on the lock's release channel, as the server that holds the
	 * lock's slot counts them (shard channels on a Cluster).
	 */
	private long subscribers(String name) {
		String channel = lockKey(name) + ":released";
		if (this.redis instanceof RedisCluster cluster) {
			return cluster.onNode(RedisCluster.masterOf(name),
					(commands) -> commands.pubsubShardNumsub(channel).getOrDefault(channel, 0L));
		}
		Long count = this.raw.execute((RedisCallback<Long>) (connection) -> {
			@SuppressWarnings("unchecked")
			RedisAsyncCommands<byte[], byte[]> commands = (RedisAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			try {
				return commands.pubsubNumsub(channel.getBytes(StandardCharsets.UTF_8))
					.get(10, TimeUnit.SECONDS)
					.values()
					.iterator()
					.next();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		return (count != null) ? count : -1;
	}

	/**
	 * A cluster client that asks for sharded channels of a server that lacks
	 * {@code SSUBSCRIBE} (Redis before 7, here a 7 with the command renamed away) listens
	 * with {@code SUBSCRIBE} instead, as the release scripts then publish.
	 */
	@Test
	void listensWithClassicSubscribeWhereTheServerLacksShardedPubSub() throws Exception {
		try (LocalRedisServer server = LocalRedisServer.start("--rename-command", "SSUBSCRIBE", "SSUBSCRIBE-GONE")) {
			LettuceConnectionFactory connectionFactory = server.connectionFactory();
			List<String> received = new CopyOnWriteArrayList<>();
			try (LettuceReleaseChannels channels = new LettuceReleaseChannels(connectionFactory, true,
					SyncTaskExecutor::new, (channel, message) -> received.add(channel + " " + message), (channel) -> {
					})) {
				channels.listen("redislock:{a}:released").get(10, TimeUnit.SECONDS);
				StringRedisTemplate template = server.template();
				template.convertAndSend("redislock:{a}:released", "i1 redislock:{a}");
				await().atMost(WAKE_UP_BOUND).until(() -> received.contains("redislock:{a}:released i1 redislock:{a}"));
			}
			finally {
				connectionFactory.destroy();
			}
		}
	}

}
