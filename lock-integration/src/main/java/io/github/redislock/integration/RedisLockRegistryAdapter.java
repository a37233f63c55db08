package io.github.redislock.integration;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import io.github.redislock.core.LockHandle;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.support.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.Assert;

/**
 * A Spring Integration {@link LockRegistry} whose locks are the locks of a
 * {@link RedisLockTemplate}: a drop-in for Spring Integration's {@code RedisLockRegistry}
 * in its components and its {@code LockRegistryLeaderInitiator}. <pre class="code">
 * &#64;Bean
 * RedisLockRegistryAdapter lockRegistry(RedisLockTemplate locks) {
 *     return new RedisLockRegistryAdapter(locks);
 * }
 * </pre>
 * <p>
 * <strong>Names.</strong> {@code obtain(key)} takes a {@code String} key, as Spring
 * Integration's registry does, and returns the lock named {@code key}: the same lock as
 * {@code template.getLock(key)} and the annotations of that name (the template's key
 * prefix keeps the locks of different applications apart). The same object is returned
 * for a key while it is cached (at most {@link #setCacheCapacity(int) 256} keys, least
 * recently obtained dropped first; {@link #expireUnusedOlderThan(long)} drops those no
 * thread holds); dropping a lock object loses nothing, since the holds are the
 * registry's.
 * <p>
 * <strong>Owners and re-entry.</strong> A hold belongs to (this registry, the calling
 * thread): a thread that locks again re-enters its hold, and only its last
 * {@code unlock()} releases the lock. Another thread, or the same thread through another
 * registry, is another owner and waits. The hold itself is a {@link LockHandle} of the
 * template ({@link RedisLockTemplate#tryAcquire(String, Duration, Duration, Duration)}),
 * so a thread holding the lock through an annotation or {@code template.getLock(key)}
 * that asks this registry for it waits like any other owner.
 * <p>
 * <strong>Leases.</strong> Without {@code expireAfter} a hold is renewed for as long as
 * it is held (the template's watchdog, {@code redislock.lease-time}), so work that runs
 * long keeps its lock, and a holder that dies frees it within one lease. With
 * {@code expireAfter} (as Spring Integration's registry has) the lock expires after that
 * fixed lease unless it is renewed: by {@link #renewLock(Object)}, by a re-entry, or
 * every third of it by the {@link #setRenewalTaskScheduler(TaskScheduler) renewal
 * scheduler} when one is set. {@link DistributedLock#lock(Duration)} and
 * {@link DistributedLock#tryLock(Duration, Duration)} take a fixed lease of their own.
 * <p>
 * <strong>Each re-entry asks Redis.</strong> A re-entry extends the hold in Redis in one
 * owner-checked call (as Spring Integration's registry does), so a holder learns on
 * demand whether it still holds the lock: a hold found gone (deleted, expired, taken by
 * another owner) is reported lost ({@code LockLostEvent}) and the asking {@code tryLock}
 * answers {@code false} at once, even when the lock is free now, so that a leader whose
 * lock was lost steps down at its next heartbeat. A re-entry through {@code lock()} or
 * {@code lockInterruptibly()} then takes the lock afresh. The lost hold's own
 * acquisitions still count: the thread's unlocks go to its later hold first (newest
 * first), then to them (the last one throws {@link LockLostException}, unless
 * {@code redislock.on-lock-lost=log}). A caller that never unlocks them, as the leader
 * initiator does once it is revoked, leaves nothing held: its later holds are released by
 * their own unlocks. A hold taken without a fixed lease is fixed to
 * {@link #setLeaseTime(Duration) the lease time} by its first re-entry (an extension
 * fixes the lease), and the registry then renews it itself every third of that.
 * <p>
 * <strong>Fencing.</strong> {@link #fencingToken(Object)} gives the calling thread's
 * hold's token: a leader reads it when granted.
 *
 * @since 0.1.0
 */
public final class RedisLockRegistryAdapter
		implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock>, DisposableBean {

	private static final Log logger = LogFactory.getLog(RedisLockRegistryAdapter.class);

	/**
	 * The lease of holds the registry renews itself, unless
	 * {@link #setLeaseTime(Duration) set}: the template's default lease.
	 */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	/** Lock objects kept for reuse, unless {@link #setCacheCapacity(int) set}. */
	public static final int DEFAULT_CACHE_CAPACITY = 256;

	/**
	 * The longest one acquisition waits: longer waits ({@code lock()}) ask again, so that
	 * no duration overflows and an uninterruptible wait can clear an interrupt.
	 */
	private static final Duration WAIT_SLICE = Duration.ofMinutes(1);

	private final RedisLockTemplate template;

	private final @Nullable Duration expireAfter;

	private volatile Duration leaseTime = DEFAULT_LEASE_TIME;

	/** The live holds, by lock name and thread. */
	private final Map<HoldKey, Hold> holds = new ConcurrentHashMap<>();

	/** Acquisitions of holds found lost that their thread has not unlocked yet. */
	private final Map<HoldKey, LostHold> lost = new ConcurrentHashMap<>();

	/** Guards {@link #locks} and {@link #cacheCapacity}. */
	private final Object cacheMonitor = new Object();

	private int cacheCapacity = DEFAULT_CACHE_CAPACITY;

	private final LinkedHashMap<String, RegistryLock> locks = new LinkedHashMap<>(16, 0.75f, true) {

		private static final long serialVersionUID = 1L;

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, RegistryLock> eldest) {
			return size() > RedisLockRegistryAdapter.this.cacheCapacity;
		}

	};

	private volatile @Nullable TaskScheduler renewalScheduler;

	/** Guarded by {@code this}: made on first use when no scheduler was set. */
	private @Nullable ScheduledExecutorService ownRenewals;

	private volatile boolean destroyed;

	/**
	 * Create a registry over {@code template} whose holds are renewed while held, by the
	 * template's watchdog.
	 * @param template the lock template (the application's {@code RedisLockTemplate}
	 * bean, or the {@code redLockTemplate})
	 */
	public RedisLockRegistryAdapter(RedisLockTemplate template) {
		this(template, null, false);
	}

	/**
	 * Create a registry over {@code template} whose locks expire {@code expireAfter}
	 * after their acquisition or last renewal, as Spring Integration's
	 * {@code RedisLockRegistry} does: renew them with {@link #renewLock(Object)}, a
	 * re-entry, or a {@link #setRenewalTaskScheduler(TaskScheduler) renewal scheduler}.
	 * @param template the lock template
	 * @param expireAfter the registry-wide fixed lease; positive
	 */
	public RedisLockRegistryAdapter(RedisLockTemplate template, Duration expireAfter) {
		this(template, expireAfter, true);
	}

	private RedisLockRegistryAdapter(RedisLockTemplate template, @Nullable Duration expireAfter, boolean fixed) {
		Assert.notNull(template, "'template' must not be null");
		if (fixed) {
			Assert.notNull(expireAfter, "'expireAfter' must not be null");
			Assert.isTrue(expireAfter.toMillis() > 0, "'expireAfter' must be at least a millisecond");
		}
		this.template = template;
		this.expireAfter = expireAfter;
	}

	/**
	 * Set the lease of a hold taken without a fixed lease once a re-entry or
	 * {@link #renewLock(Object)} has extended it (an extension fixes the lease; the
	 * registry then renews it every third of this while it is held). A holder that dies
	 * frees such a lock within this lease. Default {@link #DEFAULT_LEASE_TIME}, the
	 * template's default; set it to {@code redislock.lease-time} when that differs.
	 * @param leaseTime the lease; at least 30 ms
	 */
	public void setLeaseTime(Duration leaseTime) {
		Assert.notNull(leaseTime, "'leaseTime' must not be null");
		Assert.isTrue(leaseTime.toMillis() >= 30, "'leaseTime' must be at least 30ms");
		this.leaseTime = leaseTime;
	}

	/**
	 * Set how many lock objects are kept for reuse; the least recently obtained go first.
	 * Dropping one loses no hold.
	 * @param cacheCapacity the number of lock objects kept; positive
	 */
	public void setCacheCapacity(int cacheCapacity) {
		Assert.isTrue(cacheCapacity > 0, "'cacheCapacity' must be positive");
		synchronized (this.cacheMonitor) {
			this.cacheCapacity = cacheCapacity;
		}
	}

	/**
	 * Set the scheduler that renews holds with a fixed lease every third of it while they
	 * are held (without one, such a lock expires unless renewed). It also runs the
	 * renewals the registry makes of its own (see {@link #setLeaseTime(Duration)}), which
	 * otherwise run on a thread of the registry's.
	 * @param renewalTaskScheduler the scheduler
	 */
	@Override
	public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
		Assert.notNull(renewalTaskScheduler, "'renewalTaskScheduler' must not be null");
		this.renewalScheduler = renewalTaskScheduler;
	}

	/**
	 * Return the lock named {@code lockKey}.
	 * @param lockKey the lock's name, a {@code String}
	 * @return the lock; the same object while it is cached
	 * @throws IllegalArgumentException when the key is not a {@code String}, or not a
	 * valid lock name (empty, too long)
	 */
	@Override
	public DistributedLock obtain(Object lockKey) {
		String name = name(lockKey);
		synchronized (this.cacheMonitor) {
			RegistryLock lock = this.locks.get(name);
			if (lock == null) {
				// Refuses a name the engine cannot take before anyone waits on it.
				this.template.getLock(name);
				lock = new RegistryLock(name);
				this.locks.put(name, lock);
			}
			return lock;
		}
	}

	/**
	 * Drop the lock objects last acquired more than {@code age} milliseconds ago that no
	 * thread holds through this registry (never acquired ones stay).
	 * @param age the age in milliseconds
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.currentTimeMillis();
		synchronized (this.cacheMonitor) {
			this.locks.values()
				.removeIf((lock) -> lock.lastAcquired > 0 && now - lock.lastAcquired > age && !isHeldHere(lock.name));
		}
	}

	private boolean isHeldHere(String name) {
		for (HoldKey key : this.holds.keySet()) {
			if (key.name().equals(name)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Renew the calling thread's hold of the lock: a new fixed lease of
	 * {@code expireAfter} from now (without {@code expireAfter}: the hold's own lease, or
	 * the {@link #setLeaseTime(Duration) lease time}, which the registry then keeps
	 * renewing), in one owner-checked call.
	 * @param lockKey the lock's name
	 * @throws IllegalStateException when the calling thread does not hold the lock, or
	 * its hold is found gone in Redis (it is then reported lost)
	 */
	@Override
	public void renewLock(Object lockKey) {
		renew(name(lockKey), null);
	}

	/**
	 * Renew the calling thread's hold of the lock with a new fixed lease of {@code ttl}
	 * from now, in one owner-checked call.
	 * @param lockKey the lock's name
	 * @param ttl the new lease; positive
	 * @throws IllegalStateException when the calling thread does not hold the lock, or
	 * its hold is found gone in Redis (it is then reported lost)
	 */
	@Override
	public void renewLock(Object lockKey, Duration ttl) {
		Assert.notNull(ttl, "'ttl' must not be null");
		renew(name(lockKey), ttl);
	}

	private void renew(String name, @Nullable Duration ttl) {
		Hold hold = this.holds.get(HoldKey.current(name));
		if (hold == null) {
			throw new IllegalStateException(
					"Could not renew mutex at " + Printable.of(name) + ": the current thread does not hold it");
		}
		Duration lease = leaseOnReentry(hold, ttl);
		extending(hold, lease);
		if (!hold.handle.extend(lease)) {
			throw new IllegalStateException(
					"Could not renew mutex at " + Printable.of(name) + ": its hold is gone (expired or deleted)");
		}
	}

	/**
	 * Return the fencing token of the calling thread's hold of the lock: strictly
	 * increasing per lock name across all holders, so a resource can refuse the writes of
	 * an earlier holder. A leader reads it when granted (the leader initiator's
	 * {@code onGranted} and {@code OnGrantedEvent} listeners run on the thread that holds
	 * the lock, and {@code Context.getRole()} is the key).
	 * @param lockKey the lock's name
	 * @return the fencing token
	 * @throws IllegalStateException when the calling thread does not hold the lock
	 * through this registry
	 */
	public long fencingToken(Object lockKey) {
		String name = name(lockKey);
		Hold hold = this.holds.get(HoldKey.current(name));
		if (hold == null) {
			throw notOwned(name);
		}
		return hold.handle.fencingToken();
	}

	/**
	 * Stop the renewals this registry makes. Holds are not released: their owners do
	 * that, or the template at its shutdown.
	 */
	@Override
	public void destroy() {
		this.destroyed = true;
		for (Hold hold : this.holds.values()) {
			hold.cancelRenewal();
		}
		ScheduledExecutorService own;
		synchronized (this) {
			own = this.ownRenewals;
			this.ownRenewals = null;
		}
		if (own != null) {
			own.shutdownNow();
		}
	}

	/**
	 * Return how many lock objects are cached (for tests).
	 */
	int cachedLocks() {
		synchronized (this.cacheMonitor) {
			return this.locks.size();
		}
	}

	/**
	 * Return the calling thread's hold count of the lock, live or lost (for tests).
	 */
	int holdCount(String name) {
		HoldKey key = HoldKey.current(name);
		Hold hold = this.holds.get(key);
		LostHold lostHold = this.lost.get(key);
		return ((hold != null) ? hold.count : 0) + ((lostHold != null) ? lostHold.count() : 0);
	}

	private static String name(Object lockKey) {
		Assert.notNull(lockKey, "'lockKey' must not be null");
		Assert.isInstanceOf(String.class, lockKey, "The lock key must be a String");
		return (String) lockKey;
	}

	private static IllegalStateException notOwned(String name) {
		return new IllegalStateException("You do not own lock at " + Printable.of(name));
	}

	/**
	 * The lease a re-entry or renewal extends a hold to: the call's, else the registry's
	 * fixed lease, else the hold's own fixed lease, else the lease time.
	 */
	private Duration leaseOnReentry(Hold hold, @Nullable Duration ttl) {
		if (ttl != null) {
			return ttl;
		}
		if (this.expireAfter != null) {
			return this.expireAfter;
		}
		Duration lease = hold.lease;
		return (lease != null) ? lease : this.leaseTime;
	}

	/**
	 * A hold is being extended to the fixed lease {@code lease}: from now on it is
	 * renewed by the registry when it is one the registry keeps while held, or when a
	 * renewal scheduler is set. (Before the extension is sent: an extension fixes the
	 * lease even when Redis does not answer it, and the template's watchdog then no
	 * longer renews the hold.)
	 */
	private void extending(Hold hold, Duration lease) {
		hold.lease = lease;
		scheduleRenewal(hold);
	}

	private void scheduleRenewal(Hold hold) {
		Duration lease = hold.lease;
		if (lease == null || this.destroyed) {
			// Renewed by the template's watchdog.
			return;
		}
		if (!hold.keptWhileHeld && this.renewalScheduler == null) {
			return;
		}
		Duration period = Duration.ofMillis(Math.max(1, lease.toMillis() / 3));
		hold.renewEvery(period, () -> renewHold(hold));
	}

	private void renewHold(Hold hold) {
		Duration lease = hold.lease;
		if (lease == null) {
			return;
		}
		try {
			if (!hold.handle.extend(lease)) {
				// Released, or found gone (reported lost by the template).
				hold.cancelRenewal();
			}
		}
		catch (UnsupportedOperationException ex) {
			hold.cancelRenewal();
		}
		catch (RuntimeException ex) {
			// Redis did not answer: the hold keeps the lease it had; tried again next
			// time.
			if (logger.isDebugEnabled()) {
				logger.debug("Could not renew lock '" + Printable.of(hold.handle.getName()) + "'; trying again in a "
						+ "third of its lease: " + ex);
			}
		}
	}

	private ScheduledFuture<?> schedule(Runnable task, Duration period) {
		TaskScheduler scheduler = this.renewalScheduler;
		if (scheduler != null) {
			return scheduler.scheduleWithFixedDelay(task, Instant.now().plus(period), period);
		}
		return ownRenewals().scheduleWithFixedDelay(task, period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
	}

	private synchronized ScheduledExecutorService ownRenewals() {
		ScheduledExecutorService own = this.ownRenewals;
		if (own == null) {
			ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "redis-lock-registry-renewal");
				thread.setDaemon(true);
				return thread;
			});
			executor.setRemoveOnCancelPolicy(true);
			own = executor;
			this.ownRenewals = own;
		}
		return own;
	}

	/**
	 * Take the lock afresh for the calling thread, which has no live hold of it, waiting
	 * up to {@code waitNanos} (negative: as long as it takes).
	 * @param interruptible whether an interrupt ends the wait (the interrupt status is
	 * then set and the answer is {@code false}); otherwise it is kept for the end
	 */
	boolean acquire(String name, long waitNanos, @Nullable Duration ttl, boolean interruptible) {
		HoldKey key = HoldKey.current(name);
		Duration lease = (ttl != null) ? ttl : this.expireAfter;
		long deadline = System.nanoTime() + Math.max(0, waitNanos);
		boolean interrupted = false;
		try {
			while (true) {
				if (!interruptible && Thread.interrupted()) {
					interrupted = true;
				}
				long left = (waitNanos < 0) ? WAIT_SLICE.toNanos() : deadline - System.nanoTime();
				Duration slice = Duration.ofNanos(Math.max(0, Math.min(left, WAIT_SLICE.toNanos())));
				Optional<LockHandle> handle = this.template.tryAcquire(name, slice, lease, null);
				if (handle.isPresent()) {
					Hold hold = new Hold(handle.get(), lease, ttl == null && this.expireAfter == null, this);
					this.holds.put(key, hold);
					scheduleRenewal(hold);
					return true;
				}
				if (Thread.currentThread().isInterrupted() && interruptible) {
					return false;
				}
				if (waitNanos >= 0 && deadline - System.nanoTime() <= 0) {
					return false;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * The calling thread asks again for its live hold: extend it in Redis (one
	 * owner-checked call), which also tells whether it still stands.
	 * @return whether it is re-entered; {@code false} when the hold was found gone: it is
	 * then given back and its acquisitions kept apart (see {@link #unlock(String)})
	 */
	boolean reenter(String name, Hold hold, @Nullable Duration ttl) {
		Duration lease = leaseOnReentry(hold, ttl);
		extending(hold, lease);
		boolean stands;
		try {
			stands = hold.handle.extend(lease);
		}
		catch (UnsupportedOperationException ex) {
			// The template's holds cannot be extended: re-entered without asking Redis.
			hold.count++;
			return true;
		}
		if (stands) {
			hold.count++;
			return true;
		}
		abandon(HoldKey.current(name), hold);
		return false;
	}

	/**
	 * A hold found lost when its thread asked for it again: out of the live holds, given
	 * back in Redis (owner-checked; it may still be there when only its local deadline
	 * passed), its acquisitions kept apart for their unlocks.
	 */
	private void abandon(HoldKey key, Hold hold) {
		this.holds.remove(key, hold);
		hold.cancelRenewal();
		LockLostException failure = null;
		try {
			hold.handle.release();
		}
		catch (LockLostException ex) {
			failure = ex;
		}
		catch (RuntimeException ex) {
			// Redis did not answer: the template sends the release again later.
			if (logger.isDebugEnabled()) {
				logger.debug("Could not give back the lost hold of lock '" + Printable.of(key.name()) + "': " + ex);
			}
		}
		LostHold lostHold = new LostHold(hold.count, failure);
		this.lost.merge(key, lostHold, LostHold::plus);
	}

	/**
	 * Undo one acquisition of the calling thread: of its live hold first (its last unlock
	 * releases it), then of a hold found lost earlier (its last unlock throws the loss).
	 */
	void unlock(String name) {
		HoldKey key = HoldKey.current(name);
		Hold hold = this.holds.get(key);
		if (hold != null) {
			if (--hold.count > 0) {
				return;
			}
			this.holds.remove(key, hold);
			hold.cancelRenewal();
			hold.handle.release();
			return;
		}
		LostHold lostHold = this.lost.get(key);
		if (lostHold == null) {
			throw notOwned(name);
		}
		if (lostHold.count() > 1) {
			this.lost.put(key, new LostHold(lostHold.count() - 1, lostHold.failure()));
			return;
		}
		this.lost.remove(key);
		LockLostException failure = lostHold.failure();
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * A lock of this registry: a view of the registry's holds of one name.
	 */
	final class RegistryLock implements DistributedLock {

		private final String name;

		/** When a thread last acquired it through this object (epoch ms; 0: never). */
		volatile long lastAcquired;

		RegistryLock(String name) {
			this.name = name;
		}

		@Override
		public void lock() {
			lockUninterruptibly(null);
		}

		@Override
		public void lock(Duration ttl) {
			checkTtl(ttl);
			lockUninterruptibly(ttl);
		}

		private void lockUninterruptibly(@Nullable Duration ttl) {
			Hold hold = RedisLockRegistryAdapter.this.holds.get(HoldKey.current(this.name));
			if (hold != null && reenter(this.name, hold, ttl)) {
				acquired();
				return;
			}
			acquire(this.name, -1, ttl, false);
			acquired();
		}

		@Override
		public void lockInterruptibly() throws InterruptedException {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			Hold hold = RedisLockRegistryAdapter.this.holds.get(HoldKey.current(this.name));
			if (hold != null && reenter(this.name, hold, null)) {
				acquired();
				return;
			}
			if (!acquire(this.name, -1, null, true)) {
				Thread.interrupted();
				throw new InterruptedException();
			}
			acquired();
		}

		@Override
		public boolean tryLock() {
			return tryAcquire(0, null);
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			boolean acquired = tryAcquire(unit.toNanos(time), null);
			if (!acquired && Thread.interrupted()) {
				throw new InterruptedException();
			}
			return acquired;
		}

		@Override
		public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
			Assert.notNull(waitTime, "'waitTime' must not be null");
			checkTtl(ttl);
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			boolean acquired = tryAcquire(saturatedNanos(waitTime), ttl);
			if (!acquired && Thread.interrupted()) {
				throw new InterruptedException();
			}
			return acquired;
		}

		/**
		 * Re-enter the calling thread's hold, or else take the lock within the wait.
		 * @return whether it is held; {@code false} also when the calling thread's hold
		 * was found gone, or the thread was interrupted (its status is then set)
		 */
		private boolean tryAcquire(long waitNanos, @Nullable Duration ttl) {
			Hold hold = RedisLockRegistryAdapter.this.holds.get(HoldKey.current(this.name));
			boolean acquired = (hold != null) ? reenter(this.name, hold, ttl)
					: acquire(this.name, Math.max(0, waitNanos), ttl, true);
			if (acquired) {
				acquired();
			}
			return acquired;
		}

		private void acquired() {
			this.lastAcquired = System.currentTimeMillis();
		}

		@Override
		public void unlock() {
			RedisLockRegistryAdapter.this.unlock(this.name);
		}

		@Override
		public Condition newCondition() {
			throw new UnsupportedOperationException("Distributed locks do not support conditions");
		}

		private RedisLockRegistryAdapter registry() {
			return RedisLockRegistryAdapter.this;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return other instanceof RegistryLock lock && lock.registry() == registry() && lock.name.equals(this.name);
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(registry()) * 31 + this.name.hashCode();
		}

		@Override
		public String toString() {
			return "RedisLockRegistryAdapter lock '" + Printable.of(this.name) + "'";
		}

	}

	private static void checkTtl(Duration ttl) {
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(ttl.toMillis() > 0, "'ttl' must be at least a millisecond");
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return duration.isNegative() ? 0 : Long.MAX_VALUE;
		}
	}

	/**
	 * Where a thread's hold of a lock is kept.
	 */
	record HoldKey(String name, long thread) {

		@SuppressWarnings("deprecation") // Thread.threadId() is Java 19+
		static HoldKey current(String name) {
			return new HoldKey(name, Thread.currentThread().getId());
		}

	}

	/**
	 * A thread's live hold: the template's handle, the thread's count of acquisitions,
	 * its fixed lease (none: renewed by the template's watchdog) and its renewal by the
	 * registry.
	 */
	static final class Hold {

		final LockHandle handle;

		/** Whether the registry renews it while held once its lease is fixed. */
		final boolean keptWhileHeld;

		private final RedisLockRegistryAdapter registry;

		/** Read and written by the holding thread only. */
		int count = 1;

		volatile @Nullable Duration lease;

		/** Guarded by {@code this}. */
		private @Nullable ScheduledFuture<?> renewal;

		/** Guarded by {@code this}. */
		private @Nullable Duration renewalPeriod;

		/** Guarded by {@code this}. */
		private boolean ended;

		Hold(LockHandle handle, @Nullable Duration lease, boolean keptWhileHeld, RedisLockRegistryAdapter registry) {
			this.handle = handle;
			this.lease = lease;
			this.keptWhileHeld = keptWhileHeld;
			this.registry = registry;
		}

		synchronized void renewEvery(Duration period, Runnable task) {
			if (this.ended || period.equals(this.renewalPeriod)) {
				return;
			}
			ScheduledFuture<?> previous = this.renewal;
			if (previous != null) {
				previous.cancel(false);
			}
			this.renewal = this.registry.schedule(task, period);
			this.renewalPeriod = period;
		}

		synchronized void cancelRenewal() {
			this.ended = true;
			ScheduledFuture<?> renewal = this.renewal;
			if (renewal != null) {
				renewal.cancel(false);
				this.renewal = null;
			}
		}

	}

	/**
	 * The acquisitions of holds of one lock that its thread found lost and has not
	 * unlocked yet, and what the last unlock throws.
	 */
	record LostHold(int count, @Nullable LockLostException failure) {

		LostHold plus(LostHold other) {
			return new LostHold(this.count + other.count, (this.failure != null) ? this.failure : other.failure);
		}

	}

}
