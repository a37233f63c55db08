package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's {@link KeepAliveLockProvider} over {@link RedisLockProvider} on a real
 * Redis: it extends the lock from its own thread in the middle of each
 * {@code lockAtMostFor} (30 seconds at least, so this test takes about 16 seconds), each
 * time with what remains of the first {@code lockAtLeastFor}, which the unlock then
 * keeps, not a whole {@code lockAtLeastFor} from the extension.
 */
@ExtendWith(RedisExtension.class)
class KeepAliveLockProviderTests {

	private final Instances instances;

	private final StringRedisTemplate raw;

	private final ScheduledExecutorService extensions = Executors.newSingleThreadScheduledExecutor();

	private final String name = "keep-alive-" + UUID.randomUUID();

	KeepAliveLockProviderTests(RedisServer redis) {
		this.instances = new Instances(redis);
		this.raw = redis.template();
	}

	@AfterEach
	void close() throws Exception {
		this.extensions.shutdownNow();
		this.instances.close();
	}

	@Test
	void aJobOutlivingHalfItsLockAtMostForIsExtendedAndItsUnlockKeepsWhatRemainsOfLockAtLeastFor() {
		RedisLockTemplate template = this.instances.template();
		DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(
				new KeepAliveLockProvider(new RedisLockProvider(template), this.extensions));
		long[] extendedAt = new long[1];
		executor.executeWithLock((Runnable) () -> {
			long token = LockContext.fencingToken();
			// Extended 15 s in: a lease of 30 s again, and lockAtLeastFor 20 s less 15 s.
			await().pollInSameThread()
				.pollInterval(Duration.ofMillis(100))
				.atMost(Duration.ofSeconds(25))
				.until(() -> pttl() < 16_000 || !LockContext.isHeld());
			await().pollInSameThread()
				.pollInterval(Duration.ofMillis(50))
				.atMost(Duration.ofSeconds(10))
				.until(() -> pttl() > 20_000 || !LockContext.isHeld());
			extendedAt[0] = System.nanoTime();
			assertThat(LockContext.isHeld()).isTrue();
			assertThat(LockContext.fencingToken()).as("the same hold").isEqualTo(token);
		}, new LockConfiguration(ClockProvider.now(), this.name, Duration.ofSeconds(30), Duration.ofSeconds(20)));
		long kept = pttl();
		long sinceExtension = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - extendedAt[0]);
		assertThat(kept).as("what remains of the 5 s lockAtLeastFor of the extension").isBetween(1L, 5_000L);
		assertThat(kept + sinceExtension).isGreaterThan(4_000L);
		assertThat(template.getLock(this.name).isLocked()).isTrue();
	}

	private long pttl() {
		Long pttl = LockRecords.leaseLeftMillis(this.raw, "redislock:{" + this.name + "}");
		return (pttl != null) ? pttl : -2;
	}

}
