package io.github.redislock.internal.lock;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTargets;

/**
 * The lock contract for the exclusive lock ({@link RedisLockTemplate#getLock}): one
 * holder at a time across all instances, re-entrant by its thread with the token kept,
 * fenced, its own rival.
 */
class ExclusiveLockContractTests extends LockContractTests {

	ExclusiveLockContractTests(RedisMode mode, RedisTargets targets) {
		super(mode, targets);
	}

	@Override
	protected Traits traits() {
		return Traits.EXCLUSIVE;
	}

	@Override
	protected Contender subject(RedisLockTemplate template, String name) {
		return Contender.of(template.getLock(name), false);
	}

}
