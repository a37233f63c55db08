package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;

import io.github.redislock.core.LockHolder;
import io.github.redislock.core.LockKind;

/**
 * Reentrant exclusive {@link io.github.redislock.core.RedisLock RedisLock}: a Redis hash
 * naming the owning instance and thread ({@code owner}) and the fencing token, with the
 * lease as its expiry.
 */
final class ExclusiveRedisLock extends AbstractRedisLock {

	ExclusiveRedisLock(DefaultRedisLockTemplate template, String name, String key, HoldBounds bounds,
			LockMetricNames.Tag metricTag) {
		super(template, name, key, key, bounds, metricTag);
	}

	@Override
	ExclusiveRedisLock copy(HoldBounds bounds, LockMetricNames.Tag metricTag) {
		return new ExclusiveRedisLock(this.template, this.name, this.key, bounds, metricTag);
	}

	@Override
	LockKind kind() {
		return LockKind.EXCLUSIVE;
	}

	@Override
	LockCommands.ScriptCall acquireCall(String owner, long leaseMillis, boolean willWait, boolean othersWait) {
		return this.template.commands()
			.acquireCall(this.key, owner, leaseMillis, willWait, othersWait, releaseMessage());
	}

	@Override
	LockCommands.ScriptCall releaseCall(String owner, long token, long holdAtLeastMillis) {
		return this.template.commands().releaseCall(this.key, owner, token, releaseMessage(), holdAtLeastMillis);
	}

	@Override
	LockCommands.ScriptCall extendCall(String owner, long leaseMillis, long holdAtLeastMillis) {
		return this.template.commands().extendCall(this.key, owner, leaseMillis, holdAtLeastMillis);
	}

	@Override
	public boolean isLocked() {
		return this.template.commands().exists(this.key);
	}

	@Override
	public Duration remainingLease() {
		return this.template.commands().remainingLease(this.key);
	}

	@Override
	public Optional<LockHolder> holder() {
		return this.template.commands().holder(this.key);
	}

}
