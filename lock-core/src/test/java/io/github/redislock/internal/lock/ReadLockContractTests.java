package io.github.redislock.internal.lock;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTargets;

/**
 * The lock contract for the read side of a read-write lock
 * ({@link RedisLockTemplate#getReadWriteLock}): shared with the readers of every
 * instance, excluded by a writer (its rival) and excluding it, re-entrant by its thread
 * with the token kept, fenced (readers' and writers' tokens come from one counter).
 */
class ReadLockContractTests extends LockContractTests {

	ReadLockContractTests(RedisMode mode, RedisTargets targets) {
		super(mode, targets);
	}

	@Override
	protected Traits traits() {
		return new Traits(true, true, false, true, true);
	}

	@Override
	protected Contender subject(RedisLockTemplate template, String name) {
		return Contender.of(template.getReadWriteLock(name).readLock(), true);
	}

	@Override
	protected Contender rival(RedisLockTemplate template, String name) {
		return Contender.of(template.getReadWriteLock(name).writeLock(), false);
	}

}
