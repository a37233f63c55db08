package io.github.redislock.internal.lock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.StreamUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A rolling upgrade from layout 1, whose exclusive lock was a hash that expired with the
 * lease beside a counter key, to the one-string layout 2: instances of both on the same
 * lock stay exclusive. The old side runs layout 1's scripts themselves (kept as test
 * resources, byte for byte as they shipped until 2026-11-27) with the arguments it sent;
 * the new side is this version's template.
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class MixedLayoutTests {

	private static final RedisScript<Long> OLD_ACQUIRE = RedisScript.of(text("acquire.lua"), Long.class);

	private static final RedisScript<Long> OLD_RELEASE = RedisScript
		.of(text("release-common.lua") + "\n" + text("release.lua"), Long.class);

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final String name;

	private final String key;

	private final ExecutorService waiter = Executors.newSingleThreadExecutor();

	MixedLayoutTests(RedisMode mode, RedisTargets targets) {
		RedisTarget redis = targets.get(mode);
		this.templates = new LockTemplates(redis);
		this.raw = redis.template();
		this.name = redis.lockName("mixed-" + UUID.randomUUID());
		this.key = "redislock:{" + this.name + "}";
	}

	@AfterEach
	void close() throws Exception {
		this.waiter.shutdownNow();
		this.templates.close();
	}

	@Test
	void aHoldOfAnOldInstanceIsHonouredAndItsReleaseWakesANewWaiter() throws Exception {
		long oldToken = oldAcquire("old-instance:1:1", 30_000);
		assertThat(oldToken).as("the layout-1 instance took it").isPositive();
		RedisLock lock = this.templates.create().getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, null)).as("held by the layout-1 instance").isFalse();
		// A waiter of this version: woken by the layout-1 release, long before the 30 s
		// lease.
		Future<Long> token = this.waiter.submit(() -> {
			assertThat(lock.tryLock(Duration.ofSeconds(20), null)).isTrue();
			long taken = lock.fencingToken();
			lock.unlock();
			return taken;
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> "1".equals(this.raw.opsForHash().get(this.key, "waiters")));
		long releasedAt = System.nanoTime();
		assertThat(oldRelease("old-instance:1:1", oldToken)).isEqualTo(1);
		assertThat(token.get(20, TimeUnit.SECONDS)).as("a larger token than the layout-1 hold's")
			.isGreaterThan(oldToken);
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as("woken by the release, not the lease")
			.isLessThan(Duration.ofSeconds(10));
	}

	@Test
	void anOldInstanceFailsLoudlyOnALockANewInstanceHoldsAndTakesNothing() {
		RedisLock lock = this.templates.create().getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		long token = lock.fencingToken();
		assertThatExceptionOfType(RedisSystemException.class).isThrownBy(() -> oldAcquire("old-instance:1:1", 30_000))
			.withStackTraceContaining("WRONGTYPE");
		assertThat(LockRecords.read(this.raw, this.key).orElseThrow()).satisfies((held) -> {
			assertThat(held.held()).isTrue();
			assertThat(held.token()).isEqualTo(token);
		});
		lock.unlock();
		// Released: its record stays for the retention, and the layout-1 instance still
		// refuses to touch it rather than take it with a second layout beside it.
		assertThatExceptionOfType(RedisSystemException.class).isThrownBy(() -> oldAcquire("old-instance:1:2", 30_000))
			.withStackTraceContaining("WRONGTYPE");
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(lock.fencingToken()).isGreaterThan(token);
		lock.unlock();
	}

	@Test
	void anOldHoldWhoseLeaseRanOutLeavesTheLockToTheNewLayout() throws Exception {
		long oldToken = oldAcquire("old-instance:1:1", 200);
		assertThat(oldToken).isPositive();
		RedisLock lock = this.templates.create().getLock(this.name);
		await().atMost(Duration.ofSeconds(10)).pollInSameThread().until(() -> lock.tryLock(Duration.ZERO, null));
		assertThat(lock.fencingToken()).isGreaterThan(oldToken);
		assertThat(LockRecords.isHeld(this.raw, this.key)).isTrue();
		// Its late release (layout 1) finds a hold that is not its own and leaves it
		// alone.
		assertThatExceptionOfType(RedisSystemException.class).isThrownBy(() -> oldRelease("old-instance:1:1", oldToken))
			.withStackTraceContaining("WRONGTYPE");
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(LockRecords.isHeld(this.raw, this.key)).isTrue();
		lock.unlock();
	}

	@Test
	void aHoldOfAnOldInstanceIsNeitherReleasedNorExtendedNorRenewedByTheNewScripts() {
		DefaultRedisLockTemplate template = this.templates.create();
		long oldToken = oldAcquire("old-instance:1:1", 30_000);
		assertThat(oldToken).isPositive();
		LockCommands commands = template.commands();
		assertThat(commands.release(this.key, "new-instance:1:1", 0, "", 0)).as("another owner's").isEqualTo(-1);
		assertThat(commands.call(commands.extendCall(this.key, "new-instance:1:1", 60_000, 0))).isEqualTo(-1);
		assertThat(commands.renew(List.of(this.key), List.of("old-instance:1:1"), 60_000)[0])
			.as("not renewed by this version's watchdog")
			.isFalse();
		assertThat(this.raw.opsForHash().get(this.key, "owner")).isEqualTo("old-instance:1:1");
		assertThat(oldRelease("old-instance:1:1", oldToken)).isEqualTo(1);
		CompletableFuture.runAsync(() -> {
			RedisLock lock = template.getLock(this.name);
			assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
			lock.unlock();
		}, this.waiter).join();
	}

	private long oldAcquire(String owner, long leaseMillis) {
		Long result = this.raw.execute(OLD_ACQUIRE, List.of(this.key, this.key + ":fence"), owner,
				Long.toString(leaseMillis), Long.toString(LockCommands.fenceRetention(leaseMillis)), "0", "0");
		return (result != null) ? result : 0;
	}

	private long oldRelease(String owner, long token) {
		// Sharded or not as layout 1 decided it, by the same rule as this version.
		String sharded = this.templates.create().commands().shardedFlag();
		Long result = this.raw.execute(OLD_RELEASE, List.of(this.key, this.key + ":fence"), owner,
				this.key + ":released", "old-instance " + this.key, Long.toString(token),
				Long.toString(LockCommands.fenceRetention(0)), "0", sharded);
		return (result != null) ? result : 0;
	}

	private static String text(String name) {
		try {
			return StreamUtils.copyToString(
					new ClassPathResource("layout-1/" + name, MixedLayoutTests.class).getInputStream(),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
