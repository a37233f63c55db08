package io.github.redislock.internal.lock;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockHolder;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedisLock#holder()}: another instance's lookup names the holding instance, its
 * host, process and application, when the hold began and the lease left.
 */
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class LockHolderTests {

	private final LockTemplates templates;

	private final RedisTarget redis;

	private final String name;

	LockHolderTests(RedisMode mode, RedisTargets targets) {
		this.redis = targets.get(mode);
		this.templates = new LockTemplates(this.redis);
		this.name = this.redis.lockName("holder-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	@Test
	void anotherInstanceSeesWhoHoldsAnExclusiveLock() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create();
		holder.setApplicationName("orders");
		DefaultRedisLockTemplate looker = this.templates.create();
		RedisLock lock = holder.getLock(this.name);
		assertThat(looker.getLock(this.name).holder()).isEmpty();
		Instant before = Instant.now();
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(20))).isTrue();
		Instant after = Instant.now();
		try {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> looker.getLock(this.name).holder().map(LockHolder::application).orElse(""),
						"orders"::equals);
			LockHolder found = looker.getLock(this.name).holder().orElseThrow();
			assertThat(found.instanceId()).isEqualTo(holder.instanceId()).isNotEqualTo(looker.instanceId());
			assertThat(found.host()).isEqualTo(InetAddress.getLocalHost().getHostName());
			assertThat(found.pid()).isEqualTo(ProcessHandle.current().pid());
			// Timed by the server; it runs on this machine.
			assertThat(found.acquiredAt()).isBetween(before.minusSeconds(2), after.plusSeconds(2));
			assertThat(found.leaseLeft()).isGreaterThan(Duration.ZERO).isLessThanOrEqualTo(Duration.ofSeconds(20));
		}
		finally {
			lock.unlock();
		}
		assertThat(looker.getLock(this.name).holder()).isEmpty();
	}

	@Test
	void holderWhoseInstanceRecordIsGoneIsStillNamed() {
		DefaultRedisLockTemplate holder = this.templates.create();
		RedisLock lock = holder.getLock(this.name);
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(20))).isTrue();
		try {
			String record = "redislock:instance:" + holder.instanceId();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> Boolean.TRUE.equals(this.redis.template().hasKey(record)));
			long ttl = this.redis.template().getExpire(record, TimeUnit.MILLISECONDS);
			assertThat(ttl).isPositive().isLessThanOrEqualTo(InstanceRecord.TTL.toMillis());
			// As when its process died: nothing refreshes the record any more.
			holder.stopRenewing();
			this.redis.template().delete(record);
			LockHolder found = this.templates.create().getLock(this.name).holder().orElseThrow();
			assertThat(found.instanceId()).isEqualTo(holder.instanceId());
			assertThat(found.host()).isEqualTo("unknown");
			assertThat(found.pid()).isEqualTo(-1);
			assertThat(found.application()).isEmpty();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void readAndWriteSidesEachNameTheirOwnHolders() throws Exception {
		DefaultRedisLockTemplate holder = this.templates.create();
		DefaultRedisLockTemplate looker = this.templates.create();
		RedisReadWriteLock lock = holder.getReadWriteLock(this.name);
		RedisReadWriteLock seen = looker.getReadWriteLock(this.name);
		assertThat(lock.readLock().tryLock(Duration.ZERO, Duration.ofSeconds(20))).isTrue();
		try {
			assertThat(seen.readLock().holder()).hasValueSatisfying((reader) -> {
				assertThat(reader.instanceId()).isEqualTo(holder.instanceId());
				assertThat(reader.acquiredAt()).isNull();
				assertThat(reader.leaseLeft()).isGreaterThan(Duration.ZERO);
			});
			assertThat(seen.writeLock().holder()).isEmpty();
		}
		finally {
			lock.readLock().unlock();
		}
		assertThat(seen.readLock().holder()).isEmpty();
		assertThat(lock.writeLock().tryLock(Duration.ZERO, Duration.ofSeconds(20))).isTrue();
		try {
			assertThat(seen.writeLock().holder()).hasValueSatisfying((writer) -> {
				assertThat(writer.instanceId()).isEqualTo(holder.instanceId());
				assertThat(writer.acquiredAt()).isNotNull();
			});
		}
		finally {
			lock.writeLock().unlock();
		}
	}

}
