package io.github.redislock.internal.lock;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTargets;

/**
 * The lock contract for a semaphore of one permit ({@link RedisLockTemplate#getSemaphore}
 * with 1): one holder at a time across all instances, fenced
 * ({@link SemaphorePermit#fencingToken()} strictly increases per semaphore), its own
 * rival. Not re-entrant, as documented on {@link RedisSemaphore}: a permit belongs to its
 * holder rather than to a thread, and every acquisition is one more holder, so a second
 * acquisition while the one permit is held waits and gives up. A permit may be released
 * from any thread; the suite releases each on the thread that took it, like the others.
 * The history records permits as {@link io.github.redislock.faults.LockHistory} checks a
 * semaphore of one permit.
 */
class SemaphoreContractTests extends LockContractTests {

	SemaphoreContractTests(RedisMode mode, RedisTargets targets) {
		super(mode, targets);
	}

	@Override
	protected Traits traits() {
		return new Traits(false, false, false, false, false);
	}

	@Override
	protected Contender subject(RedisLockTemplate template, String name) {
		return Contender.of(template.getSemaphore(name, 1));
	}

}
