package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;

import io.github.redislock.core.LockHolder;
import io.github.redislock.core.LockKind;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.support.Printable;
import io.github.redislock.internal.lock.LockKeys.ReadWriteKeys;

/**
 * {@link RedisReadWriteLock} across processes, like
 * {@link java.util.concurrent.locks.ReentrantReadWriteLock}: any number of readers on any
 * instances, or one writer.
 * <p>
 * Each reader's hold is its own entry with its own lease deadline, so one reader's
 * release or expiry never removes another's, and a crashed reader stops blocking writers
 * when its own lease runs out. Both sides are reentrant; the write owner may also take
 * the read lock (downgrade: take read, then release write). Taking the write lock while
 * holding the read lock would wait on itself and fails at once with
 * {@link IllegalStateException}.
 * <p>
 * Fairness: writers are preferred. A writer that has to wait leaves a marker while what
 * it waits for holds the lock (withdrawn when it acquires or gives up), and new readers
 * queue behind it while it is there; readers that already hold keep their holds and
 * release normally. So a steady stream of readers cannot starve a writer. The trade-off:
 * while a writer waits, new readers wait too, even though the lock is only held for
 * reading.
 */
final class DefaultRedisReadWriteLock implements RedisReadWriteLock {

	private final ReadSide readLock;

	private final WriteSide writeLock;

	DefaultRedisReadWriteLock(DefaultRedisLockTemplate template, String name, ReadWriteKeys keys, HoldBounds bounds) {
		this.readLock = new ReadSide(template, name, keys, bounds, LockMetricNames.Tag.DERIVED);
		this.writeLock = new WriteSide(template, name, keys, bounds, LockMetricNames.Tag.DERIVED);
	}

	@Override
	public RedisLock readLock() {
		return this.readLock;
	}

	@Override
	public RedisLock writeLock() {
		return this.writeLock;
	}

	/**
	 * The read side: held in the readers set, shared with other readers.
	 */
	static final class ReadSide extends AbstractRedisLock {

		private final ReadWriteKeys keys;

		ReadSide(DefaultRedisLockTemplate template, String name, ReadWriteKeys keys, HoldBounds bounds,
				LockMetricNames.Tag metricTag) {
			super(template, name, keys.readers(), keys.write(), bounds, metricTag);
			this.keys = keys;
		}

		@Override
		ReadSide copy(HoldBounds bounds, LockMetricNames.Tag metricTag) {
			return new ReadSide(this.template, this.name, this.keys, bounds, metricTag);
		}

		@Override
		LockKind kind() {
			return LockKind.READ;
		}

		@Override
		LockCommands.ScriptCall acquireCall(String owner, long leaseMillis, boolean willWait, boolean othersWait) {
			return this.template.readWriteCommands()
				.acquireCall(this.keys, false, owner, leaseMillis, willWait, othersWait, releaseMessage());
		}

		@Override
		LockCommands.ScriptCall releaseCall(String owner, long token, long holdAtLeastMillis) {
			return this.template.readWriteCommands()
				.releaseCall(this.keys, false, owner, token, releaseMessage(), holdAtLeastMillis);
		}

		@Override
		LockCommands.ScriptCall extendCall(String owner, long leaseMillis, long holdAtLeastMillis) {
			return this.template.readWriteCommands()
				.extendCall(this.keys, false, owner, leaseMillis, holdAtLeastMillis);
		}

		@Override
		boolean sharesWithWaiters() {
			return true;
		}

		@Override
		public boolean isLocked() {
			return !remainingLease().isZero();
		}

		/**
		 * Return how long the readers still hold the lock: the lease left of the reader
		 * whose lease ends last.
		 */
		@Override
		public Duration remainingLease() {
			return this.template.readWriteCommands().readersLease(this.keys);
		}

		@Override
		public Optional<LockHolder> holder() {
			return this.template.commands().holder(this.keys.readers());
		}

	}

	/**
	 * The write side: exclusive, in the writer hash.
	 */
	static final class WriteSide extends AbstractRedisLock {

		private final ReadWriteKeys keys;

		WriteSide(DefaultRedisLockTemplate template, String name, ReadWriteKeys keys, HoldBounds bounds,
				LockMetricNames.Tag metricTag) {
			super(template, name, keys.write(), keys.write(), bounds, metricTag);
			this.keys = keys;
		}

		@Override
		WriteSide copy(HoldBounds bounds, LockMetricNames.Tag metricTag) {
			return new WriteSide(this.template, this.name, this.keys, bounds, metricTag);
		}

		@Override
		LockKind kind() {
			return LockKind.WRITE;
		}

		@Override
		void checkAcquire(long threadId) {
			if (this.template.holds().get(this.keys.readers(), threadId) != null) {
				throw new IllegalStateException("The current thread holds the read lock of '" + Printable.of(this.name)
						+ "' and asks for its write lock, which would wait on itself: release the read lock first"
						+ " (upgrading is not supported; downgrading, write then read, is)");
			}
		}

		@Override
		LockCommands.ScriptCall acquireCall(String owner, long leaseMillis, boolean willWait, boolean othersWait) {
			return this.template.readWriteCommands()
				.acquireCall(this.keys, true, owner, leaseMillis, willWait, othersWait, releaseMessage());
		}

		@Override
		LockCommands.ScriptCall releaseCall(String owner, long token, long holdAtLeastMillis) {
			return this.template.readWriteCommands()
				.releaseCall(this.keys, true, owner, token, releaseMessage(), holdAtLeastMillis);
		}

		@Override
		LockCommands.ScriptCall extendCall(String owner, long leaseMillis, long holdAtLeastMillis) {
			return this.template.readWriteCommands().extendCall(this.keys, true, owner, leaseMillis, holdAtLeastMillis);
		}

		@Override
		void gaveUp(String owner) {
			this.template.readWriteCommands().writerGaveUp(this.keys, owner, releaseMessage());
			// Readers of this instance queued behind this writer: the message published
			// for other instances does not reach them (an instance skips its own).
			this.template.signals().signal(this.signalKey);
		}

		@Override
		public boolean isLocked() {
			return this.template.commands().exists(this.keys.write());
		}

		@Override
		public Duration remainingLease() {
			return this.template.commands().remainingLease(this.keys.write());
		}

		@Override
		public Optional<LockHolder> holder() {
			return this.template.commands().holder(this.keys.write());
		}

	}

}
