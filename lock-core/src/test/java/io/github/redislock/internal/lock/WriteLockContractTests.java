package io.github.redislock.internal.lock;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTargets;

/**
 * The lock contract for the write side of a read-write lock
 * ({@link RedisLockTemplate#getReadWriteLock}): one writer at a time across all
 * instances, excluding readers (its rival, shared among themselves) and excluded by them,
 * re-entrant by its thread with the token kept, fenced. A writer that stops waiting
 * (time-out, interrupt) must not hold back new readers.
 */
class WriteLockContractTests extends LockContractTests {

	WriteLockContractTests(RedisMode mode, RedisTargets targets) {
		super(mode, targets);
	}

	@Override
	protected Traits traits() {
		return new Traits(true, false, true, true, true);
	}

	@Override
	protected Contender subject(RedisLockTemplate template, String name) {
		return Contender.of(template.getReadWriteLock(name).writeLock(), false);
	}

	@Override
	protected Contender rival(RedisLockTemplate template, String name) {
		return Contender.of(template.getReadWriteLock(name).readLock(), true);
	}

}
