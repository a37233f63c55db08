package io.github.redislock.internal.lock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redislock.core.RedisLock;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.StreamUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * Hostile review of layout 2 (the exclusive lock as one string
 * {@code token:until:flags:atleast:owner}). Each test states what the design promises; a
 * failing test is a defect.
 */
@ExtendWith(RedisExtension.class)
class LayoutTwoReviewTests {

	/** About 3,170 years: a deadline {@code now + lease} above 1e14 ms. */
	private static final long VERY_LONG_LEASE_MS = 100_000_000_000_000L;

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> OLD_RENEW = RedisScript.of(text("renew.lua"), List.class);

	private static final RedisScript<Long> OLD_ACQUIRE = RedisScript.of(text("acquire.lua"), Long.class);

	private final LockTemplates templates;

	private final StringRedisTemplate raw;

	private final String name;

	private final String key;

	LayoutTwoReviewTests(RedisTargets targets) {
		RedisTarget redis = targets.get(RedisMode.STANDALONE);
		this.templates = new LockTemplates(redis);
		this.raw = redis.template();
		this.name = redis.lockName("review-" + UUID.randomUUID());
		this.key = "redislock:{" + this.name + "}";
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	/**
	 * acquire.lua's "held by another" branch writes the deadline back with a plain Lua
	 * concatenation ({@code .. untilMs ..}), which formats numbers with %.14g: a deadline
	 * of 15 digits comes out as {@code 1.0179...e+14} and the record no longer parses;
	 * every later script on the lock then fails.
	 */
	@Test
	void aWaiterOnALockWithAVeryLongLeaseLeavesItsRecordReadable() {
		DefaultRedisLockTemplate holderInstance = this.templates.create();
		DefaultRedisLockTemplate waiterInstance = this.templates.create();
		LockCommands commands = holderInstance.commands();
		String holder = "holder:1:1";
		long token = commands.acquire(this.key, holder, VERY_LONG_LEASE_MS, false, false, "m");
		assertThat(token).isPositive();
		String before = this.raw.opsForValue().get(this.key);
		// Another instance that will wait: flags the record with 'w'.
		long result = waiterInstance.commands().acquire(this.key, "waiter:1:1", 30_000, true, false, "m");
		assertThat(result).as("held by another").isNegative();
		String after = this.raw.opsForValue().get(this.key);
		assertThat(after).as("the record after a waiter flagged it (was %s)", before)
			.matches("\\d+:\\d+:[a-z]*:\\d*:.*");
		assertThatCode(() -> commands.release(this.key, holder, token, "m", 0)).as("its holder can still release it")
			.doesNotThrowAnyException();
	}

	/**
	 * A record no script of ours writes (a foreign or corrupted value) counts as gone for
	 * its own key only: the renewal of the batch it is in goes on for the others. The
	 * renewal that found the record's fields by their colons failed the whole batch with
	 * a Lua error on a non-numeric deadline (hostile review of that change), and every
	 * hold of the batch would have been reported lost.
	 */
	@Test
	void aMalformedRecordInARenewalBatchFailsOnlyItsOwnKey() {
		DefaultRedisLockTemplate instance = this.templates.create();
		LockCommands commands = instance.commands();
		String owner = "owner:1:1";
		String good = this.key;
		String bad = "redislock:{" + this.name + "-bad}";
		String other = "redislock:{" + this.name + "-other}";
		assertThat(commands.acquire(good, owner, 30_000, false, false, "m")).isPositive();
		assertThat(commands.acquire(other, owner, 30_000, false, false, "m")).isPositive();
		for (String malformed : List.of("5:abc:::" + owner, "5::::" + owner, "x:1:::" + owner)) {
			this.raw.opsForValue().set(bad, malformed, Duration.ofMinutes(1));
			boolean[] renewed = commands
				.renewAsync(List.of(good, bad, other), List.of(owner, owner, owner), 30_000, Duration.ofSeconds(10))
				.join();
			assertThat(renewed).as("renewed, for the record %s in the middle", malformed)
				.containsExactly(true, false, true);
			assertThat(this.raw.opsForValue().get(bad)).isEqualTo(malformed);
		}
	}

	/**
	 * The same through the public API: a second instance's tryLock with a wait time on a
	 * lock held with a very long fixed lease.
	 */
	@Test
	void tryLockWithWaitOnALockHeldWithAVeryLongLeaseDoesNotBreakTheLock() throws Exception {
		RedisLock held = this.templates.create().getLock(this.name);
		assertThat(held.tryLock(Duration.ZERO, Duration.ofMillis(VERY_LONG_LEASE_MS))).isTrue();
		RedisLock other = this.templates.create().getLock(this.name);
		Thread waiter = new Thread(() -> {
			try {
				other.tryLock(Duration.ofMillis(300), Duration.ofSeconds(30));
			}
			catch (RuntimeException ex) {
				// checked below through the record
			}
		});
		waiter.start();
		waiter.join(10_000);
		assertThat(held.isLocked()).as("still reported as locked").isTrue();
		assertThatCode(held::unlock).as("the holder releases it").doesNotThrowAnyException();
		assertThatCode(() -> LockRecords.read(this.raw, this.key)).as("the record still parses")
			.doesNotThrowAnyException();
		assertThat(LockRecords.isHeld(this.raw, this.key)).isFalse();
	}

	/**
	 * acquire.lua's "already ours" branch (a re-sent acquire) also concatenates
	 * {@code nowMs + lease} unformatted.
	 */
	@Test
	void anAcquireResentByItsOwnerWithAVeryLongLeaseKeepsTheRecordReadable() {
		LockCommands commands = this.templates.create().commands();
		String owner = "owner:1:1";
		long token = commands.acquire(this.key, owner, VERY_LONG_LEASE_MS, false, false, "m");
		assertThat(token).isPositive();
		assertThat(commands.acquire(this.key, owner, VERY_LONG_LEASE_MS, false, false, "m"))
			.as("the re-sent acquire answers the same token")
			.isEqualTo(token);
		assertThat(this.raw.opsForValue().get(this.key)).matches("\\d+:\\d+:[a-z]*:\\d*:.*");
		assertThatCode(() -> commands.release(this.key, owner, token, "m", 0)).doesNotThrowAnyException();
	}

	/**
	 * A limit of the rolling upgrade, as docs/migrating.md states it: a layout-1 instance
	 * renews all its holds (of one slot) in one renew.lua call; when one of those holds
	 * lapsed (a pause, a network hiccup) and a layout-2 instance took that lock
	 * meanwhile, layout 1's HMGET on the string fails the whole call with WRONGTYPE, so
	 * none of the holds of that call is renewed: to that instance it is a Redis outage
	 * (its holds end at their leases and are reported lost; none is held twice). The
	 * shipped layout-1 scripts cannot be changed; this pins the behaviour the docs
	 * describe.
	 */
	@Test
	void aLayoutOneRenewalFailsLoudlyWhenALayoutTwoInstanceTookOneOfItsLapsedLocks() {
		String lapsedKey = this.key;
		String otherKey = "redislock:{" + this.name + "-only-old}";
		// The layout-1 instance holds another lock, used only by layout-1 instances.
		Long otherToken = this.raw.execute(OLD_ACQUIRE, List.of(otherKey, otherKey + ":fence"), "old:1:2", "3000",
				Long.toString(LockCommands.fenceRetention(3000)), "0", "0");
		assertThat(otherToken).isPositive();
		// Its hold on the first lock lapsed and a layout-2 instance took that lock.
		RedisLock taken = this.templates.create().getLock(this.name);
		assertThat(taken.tryLock(Duration.ZERO, null)).isTrue();
		// The layout-1 watchdog's tick: both of its holds in one call.
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> this.raw.execute(OLD_RENEW, List.of(lapsedKey, otherKey), "30000", "old:1:1", "old:1:2"))
			.satisfies((failure) -> assertThat(NestedExceptionUtils.getMostSpecificCause(failure).getMessage())
				.contains("WRONGTYPE"));
		assertThat(this.raw.getExpire(otherKey, java.util.concurrent.TimeUnit.MILLISECONDS))
			.as("its other hold not renewed: it ends with its lease")
			.isLessThanOrEqualTo(3000);
		assertThat(LockRecords.isHeld(this.raw, lapsedKey)).as("the layout-2 hold is untouched").isTrue();
		taken.unlock();
	}

	private static String text(String name) {
		try {
			return StreamUtils.copyToString(
					new ClassPathResource("layout-1/" + name, LayoutTwoReviewTests.class).getInputStream(),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Probe: after a force-unlock the old holder's release, renewal and extension find
	 * the hold gone, and the next token is larger.
	 */
	@Test
	void forceUnlockThenTheOldHoldersCallsFindTheHoldGoneAndTokensIncrease() {
		LockCommands commands = this.templates.create().commands();
		String owner = "inst:1:1";
		long token = commands.acquire(this.key, owner, 30_000, false, false, "m");
		assertThat(commands.forceUnlock(this.key, this.key, "m")).isTrue();
		assertThat(commands.renew(List.of(this.key), List.of(owner), 30_000)[0]).isFalse();
		assertThat(commands.call(commands.extendCall(this.key, owner, 30_000, 0))).isZero();
		assertThat(commands.release(this.key, owner, token, "m", 0)).isZero();
		assertThat(commands.acquire(this.key, "inst:1:2", 30_000, false, false, "m")).isGreaterThan(token);
	}

	/**
	 * Probe: an owner id with ':' and a newline (the instance id is the owner's first
	 * part) survives every script.
	 */
	@Test
	void anOwnerIdWithColonsAndANewlineWorksThroughEveryScript() {
		LockCommands commands = this.templates.create().commands();
		String owner = "in:st\nance\n:1:1";
		long token = commands.acquire(this.key, owner, 30_000, false, false, "m");
		assertThat(token).isPositive();
		assertThat(commands.acquire(this.key, owner, 30_000, false, false, "m")).isEqualTo(token);
		assertThat(commands.renew(List.of(this.key), List.of(owner), 30_000)[0]).isTrue();
		assertThat(commands.owner(this.key)).isEqualTo(owner);
		assertThat(commands.call(commands.extendCall(this.key, owner, 30_000, 0))).isEqualTo(1);
		assertThat(commands.release(this.key, owner, token, "m", 0)).isEqualTo(1);
		assertThat(commands.release(this.key, owner, token, "m", 0)).as("re-sent").isEqualTo(1);
	}

	/**
	 * DESIGN.md: the key outlives the hold by the retention, "twice the lease, at least a
	 * minute" (layout 1 kept the counter that long, also after a release). A release kept
	 * for its hold-at-least rewrites the key with PX keep + one minute instead.
	 */
	@Test
	void aReleaseKeptForItsHoldAtLeastKeepsTheTokenForTheRetentionOfItsLease() {
		LockCommands commands = this.templates.create().commands();
		long lease = 600_000;
		String owner = "inst:1:1";
		long token = commands.acquire(this.key, owner, lease, false, false, "m");
		assertThat(commands.release(this.key, owner, token, "m", 1_000)).isEqualTo(1);
		assertThat(this.raw.getExpire(this.key, java.util.concurrent.TimeUnit.MILLISECONDS))
			.as("the record of token %s outlives the kept hold by twice the lease", token)
			.isGreaterThan(2 * lease);
	}

}
