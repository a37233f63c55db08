package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.test.RedisTarget;

/**
 * Creates lock templates on their own connection factories — each one like a separate
 * application instance — and destroys them after the test.
 */
final class LockTemplates implements AutoCloseable {

	private final RedisTarget redis;

	private final List<DefaultRedisLockTemplate> templates = new ArrayList<>();

	private final List<RedLockTemplate> redLocks = new ArrayList<>();

	LockTemplates(RedisTarget redis) {
		this.redis = redis;
	}

	DefaultRedisLockTemplate create() {
		return create(LockSettings.DEFAULTS);
	}

	DefaultRedisLockTemplate create(Duration leaseTime) {
		return create(LockSettings.DEFAULTS.withLeaseTime(leaseTime));
	}

	DefaultRedisLockTemplate create(LockSettings settings) {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(this.redis.connectionFactory(), settings);
		this.templates.add(template);
		return template;
	}

	/**
	 * Create a RedLock template over {@code nodes}, each reached through a connection
	 * factory of its own (another application instance of the same RedLock).
	 */
	RedLockTemplate createRedLock(List<? extends RedisTarget> nodes, LockSettings settings,
			RedLockSettings redLockSettings) {
		RedLockTemplate template = new RedLockTemplate(nodes.stream().map(RedisTarget::connectionFactory).toList(),
				settings, redLockSettings);
		this.redLocks.add(template);
		return template;
	}

	@Override
	public void close() throws Exception {
		for (DefaultRedisLockTemplate template : this.templates) {
			template.destroy();
		}
		for (RedLockTemplate template : this.redLocks) {
			template.destroy();
		}
	}

}
