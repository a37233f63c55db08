package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;

import io.github.redislock.core.LockHolder;
import io.github.redislock.core.LockKind;

/**
 * One semaphore's permits as a lock of the engine: a sorted set of holders (owner id to
 * lease deadline, by the server's clock), at most {@code permits} entries by the caller's
 * count. Permits are only taken as asynchronous holds, which belong to a call rather than
 * to a thread; the {@link io.github.redislock.core.RedisSemaphore} API and
 * {@code @DistributedSemaphore} are built on them.
 */
final class SemaphoreLock extends AbstractRedisLock {

	private final LockKeys.SemaphoreKeys keys;

	private final int permits;

	SemaphoreLock(DefaultRedisLockTemplate template, String name, LockKeys.SemaphoreKeys keys, int permits,
			HoldBounds bounds, LockMetricNames.Tag metricTag) {
		super(template, name, keys.permits(), keys.permits(), bounds, metricTag);
		this.keys = keys;
		this.permits = permits;
	}

	int permits() {
		return this.permits;
	}

	@Override
	SemaphoreLock copy(HoldBounds bounds, LockMetricNames.Tag metricTag) {
		return new SemaphoreLock(this.template, this.name, this.keys, this.permits, bounds, metricTag);
	}

	@Override
	LockKind kind() {
		return LockKind.SEMAPHORE;
	}

	@Override
	boolean sharesWithWaiters() {
		// Another permit may be free for the next waiter of this instance.
		return true;
	}

	@Override
	LockCommands.ScriptCall acquireCall(String owner, long leaseMillis, boolean willWait, boolean othersWait) {
		return this.template.commands()
			.acquirePermitCall(this.keys, owner, leaseMillis, this.permits, willWait, othersWait, releaseMessage());
	}

	@Override
	LockCommands.ScriptCall releaseCall(String owner, long token, long holdAtLeastMillis) {
		return this.template.commands().releasePermitCall(this.keys, owner, releaseMessage());
	}

	/**
	 * The call that extends a permit: its entry's lease (a permit has no hold-at-least).
	 */
	@Override
	LockCommands.ScriptCall extendCall(String owner, long leaseMillis, long holdAtLeastMillis) {
		return this.template.commands().extendMemberCall(this.keys.permits(), null, owner, leaseMillis, 0);
	}

	/**
	 * Return how many permits are held now, on any instance.
	 */
	long heldPermits() {
		return this.template.commands().heldPermits(this.keys);
	}

	@Override
	public boolean isLocked() {
		return heldPermits() > 0;
	}

	@Override
	public Duration remainingLease() {
		return this.template.commands().remainingLease(this.keys.permits());
	}

	@Override
	public Optional<LockHolder> holder() {
		return this.template.commands().holder(this.keys.permits());
	}

	@Override
	public boolean forceUnlock() {
		boolean deleted = Boolean.TRUE.equals(this.template.commands().redis().delete(this.keys.permits()));
		this.template.signals().signal(this.signalKey);
		return deleted;
	}

	@Override
	boolean acquireNew(long threadId, long waitNanos, java.time.@org.jspecify.annotations.Nullable Duration leaseTime,
			boolean interruptible) {
		throw new UnsupportedOperationException("Semaphore permits are taken with RedisSemaphore.tryAcquire, which"
				+ " returns a SemaphorePermit; a permit belongs to its holder, not to a thread");
	}

}
