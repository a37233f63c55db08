package io.github.redislock.internal.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockCallback;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.LockObserver;
import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.support.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.Assert;
import io.github.redislock.support.CurrentLocks;

/**
 * {@link RedisLockTemplate} that takes exclusive locks with the RedLock algorithm over N
 * independent Redis servers: a lock is held when a majority granted it within its lease.
 * <p>
 * Each attempt asks all nodes in parallel, each bounded by the node timeout. It succeeds
 * when at least N/2+1 nodes granted the lock and the lease left after the time spent and
 * the clock-drift allowance is positive; the lock's local deadline is then the attempt's
 * start plus the lease minus the drift. Otherwise the lock is released on every node
 * (including those that did not answer) and the attempt repeated after a random delay,
 * within the wait time. Re-entry is local. The watchdog renews held locks on all nodes; a
 * lock that a majority no longer renews is lost.
 * <p>
 * Fencing tokens: each node issues strictly increasing tokens per lock name; the lock's
 * token is the largest the granting nodes issued. The quorums of two successive holders
 * share a node, but tokens of different nodes are only comparable while the nodes' clocks
 * agree (to within the time between the two acquisitions), so on RedLock the token is
 * strictly increasing only under that assumption. Read-write locks are not available on
 * RedLock.
 *
 * @since 0.1.0
 */
public class RedLockTemplate implements RedisLockTemplate, ObservableLockTemplate, DisposableBean {

	private static final Log logger = LogFactory.getLog(RedLockTemplate.class);

	private final String instanceId = UUID.randomUUID().toString();

	private final InstanceRecord instance;

	private final java.util.concurrent.atomic.AtomicLong acquisitions = new java.util.concurrent.atomic.AtomicLong();

	private final List<LockCommands> nodes;

	private final LockSettings settings;

	private final RedLockSettings redlock;

	private final LockKeys keys;

	private final HoldRegistry holds = new HoldRegistry();

	private final LockLossReporter losses;

	private final ThreadPoolTaskExecutor calls;

	private final java.util.concurrent.atomic.AtomicLong asyncHolders = new java.util.concurrent.atomic.AtomicLong();

	private final ThreadPoolTaskScheduler watchdog;

	public RedLockTemplate(List<? extends RedisConnectionFactory> nodes, LockSettings settings,
			RedLockSettings redlock) {
		Assert.notEmpty(nodes, "RedLock needs at least one node");
		this.settings = settings;
		this.redlock = redlock;
		this.keys = new LockKeys(settings.keyPrefix());
		this.nodes = nodes.stream().map((node) -> new LockCommands(node, this.keys)).toList();
		this.losses = new LockLossReporter(this, settings.onLockLost());
		this.calls = EngineThreads.unbounded("redlock-node-call");
		this.watchdog = EngineThreads.scheduler("redlock-watchdog", 1);
		Duration period = Duration.ofMillis(Math.max(1, settings.leaseTime().toMillis() / 3));
		this.watchdog.scheduleAtFixedRate(this::renew, Instant.now().plus(period), period);
		this.instance = new InstanceRecord(this.instanceId, this.nodes, this.watchdog, this.calls);
	}

	/**
	 * Set the application name that {@code holder()} lookups report for this instance.
	 * @param applicationName the name
	 */
	public void setApplicationName(String applicationName) {
		this.instance.setApplication(applicationName);
	}

	public void setLockLostListener(LockLostListener lockLostListener) {
		this.losses.setListener(lockLostListener);
	}

	/**
	 * Set whether a thread whose lock is found lost while it still holds it is
	 * interrupted, so that blocking work under the lock stops early. Off by default.
	 * @param interruptOnLockLost whether to interrupt the holding thread
	 */
	public void setInterruptOnLockLost(boolean interruptOnLockLost) {
		this.losses.setInterruptHolder(interruptOnLockLost);
	}

	/**
	 * Set the observer told what the locks do (metrics).
	 * @param observer the observer
	 */
	@Override
	public void setLockObserver(LockObserver observer) {
		this.losses.setObserver(observer);
	}

	/**
	 * Return the locks the threads of this instance hold now.
	 * @return the holds, longest held first
	 */
	@Override
	public List<HeldLock> getHeldLocks() {
		return this.holds.describe();
	}

	@Override
	public int getActiveHoldCount() {
		return this.holds.size();
	}

	@Override
	public RedisLock getLock(String name) {
		return new RedLock(this, name, this.keys.lockKey(name), HoldBounds.of(this.settings.maxHold()));
	}

	/**
	 * Not available: read-write locks need one Redis (or a Cluster).
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public RedisReadWriteLock getReadWriteLock(String name) {
		throw new UnsupportedOperationException("Read-write locks are not available on RedLock ('" + name
				+ "'); use the RedisLockTemplate on the application's Redis");
	}

	@Override
	public <T extends @Nullable Object> T execute(String name, Duration waitTime, @Nullable Duration leaseTime,
			LockCallback<T> action) {
		return DefaultRedisLockTemplate.execute(getLock(name), waitTime, leaseTime, action);
	}

	public int getNodeCount() {
		return this.nodes.size();
	}

	public int getQuorum() {
		return this.nodes.size() / 2 + 1;
	}

	/**
	 * Not available: RedLock's quorum over independent servers is defined for one holder;
	 * take semaphores from the template on the application's Redis.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public RedisSemaphore getSemaphore(String name, int permits) {
		throw new UnsupportedOperationException("Semaphores are not available on RedLock (redLockTemplate); take '"
				+ Printable.of(name) + "' from the RedisLockTemplate on the application's Redis");
	}

	/**
	 * Run asynchronous work under a RedLock hold. RedLock waits for a majority of its
	 * nodes on a thread, so here the acquisition and the release run on this template's
	 * node-call threads (the caller's thread is not blocked; one of those is, while it
	 * waits).
	 */
	@Override
	public <T> CompletableFuture<T> executeAsync(String name, Duration waitTime, @Nullable Duration leaseTime,
			Supplier<? extends CompletionStage<T>> action) {
		return executeAsync(name, waitTime, leaseTime, null, action);
	}

	/**
	 * Run asynchronous work under a RedLock hold with a minimum hold, as
	 * {@link #executeAsync(String, Duration, Duration, Supplier)} does; the nodes keep
	 * the lock after the release for what remains of {@code holdAtLeast} by this
	 * process's clock (see {@link RedLock#releaseOnNodes}).
	 */
	@Override
	public <T> CompletableFuture<T> executeAsync(String name, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable Duration holdAtLeast, Supplier<? extends CompletionStage<T>> action) {
		RedLock lock = lock(name, holdAtLeast);
		long holderId = -this.asyncHolders.incrementAndGet();
		CompletableFuture<@Nullable LockHold> acquisition = CompletableFuture.supplyAsync(() -> {
			try {
				return lock.acquireDetached(holderId, waitTime, leaseTime);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new LockAcquisitionException(name, waitTime, "interrupted while waiting");
			}
		}, this.calls);
		CompletableFuture<T> result = new CompletableFuture<>();
		acquisition.thenCompose((hold) -> {
			if (hold == null) {
				throw lock.acquisitionFailure(waitTime);
			}
			if (result.isDone()) {
				// The caller stopped waiting (cancelled, or timed out) before the nodes
				// granted it: nobody runs the work, the hold goes back.
				CompletableFuture.runAsync(() -> lock.releaseDetached(hold), this.calls);
				return CompletableFuture.<T>failedFuture(new CancellationException("Given up by its caller"));
			}
			CompletionStage<T> work;
			CurrentLocks.entered(hold);
			try {
				work = action.get();
			}
			catch (RuntimeException ex) {
				CompletableFuture.runAsync(() -> lock.releaseDetached(hold), this.calls);
				throw ex;
			}
			finally {
				CurrentLocks.exited(hold);
			}
			return DefaultRedisLockTemplate.afterRelease(work,
					() -> CompletableFuture.runAsync(() -> lock.releaseDetached(hold), this.calls));
		}).whenComplete((value, failure) -> {
			// A dependent stage of the acquisition, not the caller's future: a caller
			// that stops waiting does not make the hold that comes later be skipped,
			// and renewed for nobody.
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(value);
			}
		});
		return result;
	}

	/**
	 * Take the named lock for a hold that no thread owns, waiting on the calling thread
	 * (RedLock's attempts run there anyway: its nodes are asked in parallel and their
	 * answers waited for). The handle is released, and extended (on a majority of the
	 * nodes, within the new lease's validity), from any thread.
	 */
	@Override
	public Optional<LockHandle> tryAcquire(String name, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable Duration holdAtLeast) {
		Assert.notNull(waitTime, "'waitTime' must not be null");
		Assert.isTrue(!waitTime.isNegative(), "'waitTime' must not be negative");
		Assert.isTrue(leaseTime == null || leaseTime.toMillis() > 0, "'leaseTime' must be positive");
		RedLock lock = lock(name, holdAtLeast);
		if (Thread.currentThread().isInterrupted()) {
			return Optional.empty();
		}
		LockHold hold;
		try {
			hold = lock.acquireDetached(-this.asyncHolders.incrementAndGet(), waitTime, leaseTime);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		return (hold != null) ? Optional.of(AsyncHold.of(lock, hold)) : Optional.empty();
	}

	private RedLock lock(String name, @Nullable Duration holdAtLeast) {
		RedLock lock = new RedLock(this, name, this.keys.lockKey(name), HoldBounds.of(this.settings.maxHold()));
		return (holdAtLeast != null && !holdAtLeast.isZero()) ? (RedLock) lock.withHoldAtLeast(holdAtLeast) : lock;
	}

	/**
	 * Release, on every node, the locks this instance still holds (owner-checked, keeping
	 * what remains of a hold-at-least), so that a redeploy does not block other instances
	 * for a whole lease; then stop.
	 */
	@Override
	public void destroy() {
		this.watchdog.shutdown();
		this.instance.close();
		for (LockHold hold : this.holds.all()) {
			if (hold.markLost("the application released it when it shut down, while the work still ran")) {
				new RedLock(this, hold.name(), hold.key(), HoldBounds.NONE).releaseOnNodes(hold);
			}
		}
		this.calls.shutdown();
		this.losses.close();
	}

	// For RedLock.

	String ownerId(long threadId) {
		// One identity per attempt: the undo of an attempt whose answers came late
		// can never touch the grant of a later one.
		return this.instanceId + ":" + threadId + ":" + this.acquisitions.incrementAndGet();
	}

	LockSettings settings() {
		return this.settings;
	}

	RedLockSettings redlock() {
		return this.redlock;
	}

	HoldRegistry holds() {
		return this.holds;
	}

	LockLossReporter losses() {
		return this.losses;
	}

	Executor calls() {
		return this.calls;
	}

	/**
	 * Run a call on every node in parallel; a node that fails or does not answer within
	 * the node timeout gives {@code null}.
	 */
	<T> List<@Nullable T> onAllNodes(Function<LockCommands, T> call) {
		return answers(startOnAllNodes(call));
	}

	/**
	 * Start a call on every node in parallel; one future per node, in node order, each
	 * completing when its call has run, however late (never cancelled: a call that was
	 * sent may still run, and what follows it on that node must wait for it).
	 */
	<T> List<CompletableFuture<T>> startOnAllNodes(Function<LockCommands, T> call) {
		List<CompletableFuture<T>> futures = new ArrayList<>(this.nodes.size());
		for (LockCommands node : this.nodes) {
			if (this.calls.getThreadPoolExecutor().isShutdown()) {
				// Closed: nothing reaches the nodes any more (a hold released at
				// shutdown).
				futures.add(CompletableFuture.failedFuture(new IllegalStateException("RedLock template closed")));
				continue;
			}
			try {
				futures.add(CompletableFuture.supplyAsync(() -> call.apply(node), this.calls));
			}
			catch (java.util.concurrent.RejectedExecutionException ex) {
				futures.add(CompletableFuture.failedFuture(ex));
			}
		}
		return futures;
	}

	/**
	 * Run a call on each node once that node's earlier call has run, whatever its
	 * outcome: the undo of an attempt must not overtake the attempt on a node whose
	 * connection is still being opened.
	 */
	<T> void afterEach(List<CompletableFuture<T>> earlier, Consumer<LockCommands> call) {
		for (int i = 0; i < earlier.size(); i++) {
			LockCommands node = this.nodes.get(i);
			earlier.get(i).whenComplete((result, failure) -> {
				try {
					call.accept(node);
				}
				catch (RuntimeException ex) {
					logger.debug("RedLock node call failed: " + ex);
				}
			});
		}
	}

	/**
	 * Wait for the answers until the node timeout; a node that fails or has not answered
	 * gives {@code null}.
	 * <p>
	 * The wait is not cut short by an interrupt (it is bounded by the node timeout
	 * anyway): a thread whose interrupt status is set, such as one releasing its lock in
	 * the {@code finally} block of cancelled work, must still hear the nodes, or its
	 * release would count as refused everywhere and report the lock lost. The interrupt
	 * status is set again on return, so that the caller stops waiting for the lock.
	 */
	<T> List<@Nullable T> answers(List<CompletableFuture<T>> futures) {
		long deadline = System.nanoTime() + this.redlock.nodeTimeout().toNanos();
		List<@Nullable T> results = new ArrayList<>(futures.size());
		boolean interrupted = false;
		for (CompletableFuture<T> future : futures) {
			T result = null;
			while (true) {
				try {
					result = future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
					break;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (Exception ex) {
					logger.debug("RedLock node did not answer: " + ex);
					break;
				}
			}
			results.add(result);
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		return results;
	}

	private void renew() {
		try {
			List<LockHold> all = this.holds.watchdogHolds();
			// Batches bound the time one script holds a node, as for single-server locks.
			for (int from = 0; from < all.size(); from += WatchdogRenewer.BATCH_SIZE) {
				List<LockHold> due = all.subList(from, Math.min(all.size(), from + WatchdogRenewer.BATCH_SIZE));
				List<String> lockKeys = due.stream().map(LockHold::key).toList();
				List<String> owners = due.stream().map(LockHold::owner).toList();
				long lease = this.settings.leaseTime().toMillis();
				long sent = System.nanoTime();
				List<boolean @Nullable []> results = onAllNodes((node) -> node.renew(lockKeys, owners, lease));
				for (int i = 0; i < due.size(); i++) {
					int renewed = 0;
					int refused = 0;
					for (boolean[] node : results) {
						renewed += (node != null && node[i]) ? 1 : 0;
						refused += (node != null && !node[i]) ? 1 : 0;
					}
					LockHold hold = due.get(i);
					if (!hold.watchdog()) {
						// Extended meanwhile: the lease is the holder's now.
						continue;
					}
					if (renewed >= getQuorum()) {
						hold.renewed(sent, TimeUnit.MILLISECONDS.toNanos(lease - this.redlock.driftMillis(lease)));
						this.losses.observer().renewed(1);
					}
					else if (refused > this.nodes.size() - getQuorum()
							&& this.holds.get(hold.key(), hold.threadId()) == hold) {
						// Nodes that answered "not yours" are a majority: nobody can
						// renew it for us.
						this.losses.lost(hold, refused + " of " + this.nodes.size()
								+ " RedLock nodes found it expired, deleted or held by another owner");
					}
				}
			}
			for (LockHold hold : this.holds.all()) {
				if (hold.deadlinePassed()) {
					this.losses.lost(hold, hold.maxHoldReached() ? hold.expiryReason()
							: "its validity ran out before a majority of RedLock nodes renewed it");
				}
			}
		}
		catch (Throwable ex) {
			logger.error("RedLock watchdog tick failed", ex);
		}
	}

}
