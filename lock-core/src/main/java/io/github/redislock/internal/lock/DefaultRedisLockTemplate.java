package io.github.redislock.internal.lock;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockCallback;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.LockKind;
import io.github.redislock.core.LockObserver;
import io.github.redislock.core.ObservableLockTemplate;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.support.Completions;
import io.github.redislock.support.Printable;
import io.github.redislock.internal.OutageLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.Assert;

/**
 * {@link RedisLockTemplate} on one Redis (standalone, Sentinel or Cluster) reached
 * through a Spring Data {@link RedisConnectionFactory}.
 * <p>
 * Each template is one lock owner identity: locks are owned by (template instance,
 * thread), so two templates in one JVM behave like two application instances. It keeps
 * the holds of its threads, one pub/sub subscription for release messages, and one
 * watchdog thread. As a {@link SmartLifecycle} it closes the subscription before the
 * connection factory it depends on stops; {@link #destroy()} stops the watchdog.
 *
 * @since 0.1.0
 */
public class DefaultRedisLockTemplate
		implements RedisLockTemplate, ObservableLockTemplate, SmartLifecycle, DisposableBean {

	private static final Log logger = LogFactory.getLog(DefaultRedisLockTemplate.class);

	private final String instanceId = UUID.randomUUID().toString();

	private final PendingReleases pendingReleases = new PendingReleases();

	private final AtomicLong acquisitions = new AtomicLong();

	private final AtomicLong asyncHolders = new AtomicLong();

	/** Made on first use: set under this monitor, read without it (volatile). */
	private volatile @Nullable ThreadPoolTaskExecutor callbacks;

	private final RedisConnectionFactory connectionFactory;

	private final LockSettings settings;

	private final LockKeys keys;

	private final LockCommands commands;

	private final ReadWriteLockCommands readWriteCommands;

	private final HoldRegistry holds = new HoldRegistry();

	private final ReleaseSignals signals;

	private final WatchdogRenewer watchdog;

	private final LockLossReporter losses;

	private final InstanceRecord instance;

	private final ThreadPoolTaskExecutor instanceRecordThread;

	private volatile boolean running;

	/**
	 * The failures of this template's periodic calls to Redis (renewals, the release
	 * channel): one WARN when an outage starts, one INFO when it ends.
	 */
	private final OutageLog outages = new OutageLog(logger, "The lock engine");

	public DefaultRedisLockTemplate(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, LockSettings.DEFAULTS);
	}

	public DefaultRedisLockTemplate(RedisConnectionFactory connectionFactory, LockSettings settings) {
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		Assert.notNull(settings, "'settings' must not be null");
		this.connectionFactory = connectionFactory;
		this.settings = settings;
		this.losses = new LockLossReporter(this, settings.onLockLost());
		this.keys = new LockKeys(settings.keyPrefix());
		this.commands = new LockCommands(connectionFactory, this.keys, settings.minReplicasAcked(),
				settings.replicaAckTimeout().toMillis());
		this.readWriteCommands = new ReadWriteLockCommands(this.commands);
		this.watchdog = new WatchdogRenewer(this.holds, this.commands, settings.leaseTime().toMillis(),
				this.losses::lost, (count) -> this.losses.observer().renewed(count), this.pendingReleases::retryAll,
				this.outages);
		// Idle release subscriptions are swept from the watchdog's scheduler: a Lettuce
		// command sent without waiting for its answer.
		this.signals = new ReleaseSignals(connectionFactory, this.keys, this.instanceId, this::callbacks,
				this.watchdog.scheduler(), this.outages);
		// Written from a thread of its own: a Redis that does not answer must not hold up
		// the watchdog's renewals and deadline checks.
		this.instanceRecordThread = EngineThreads.serial("redislock-instance-record");
		this.instance = new InstanceRecord(this.instanceId, List.of(this.commands), this.watchdog.scheduler(),
				this.instanceRecordThread);
	}

	/**
	 * Set the application name that {@code holder()} lookups report for this instance.
	 * @param applicationName the name
	 */
	public void setApplicationName(String applicationName) {
		Assert.notNull(applicationName, "'applicationName' must not be null");
		this.instance.setApplication(applicationName);
	}

	/**
	 * Set the listener told about every lost lock.
	 * @param lockLostListener the listener
	 */
	public void setLockLostListener(LockLostListener lockLostListener) {
		Assert.notNull(lockLostListener, "'lockLostListener' must not be null");
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
		Assert.notNull(observer, "'observer' must not be null");
		this.losses.setObserver(observer);
	}

	LockObserver observer() {
		return this.losses.observer();
	}

	LockLossReporter losses() {
		return this.losses;
	}

	PendingReleases pendingReleases() {
		return this.pendingReleases;
	}

	LockMetricNames.Derived metricNames() {
		return this.losses.metricNames();
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
	public RedisLock getLock(String name) {
		return new ExclusiveRedisLock(this, name, this.keys.lockKey(name), HoldBounds.of(this.settings.maxHold()),
				LockMetricNames.Tag.DERIVED);
	}

	@Override
	public RedisReadWriteLock getReadWriteLock(String name) {
		return new DefaultRedisReadWriteLock(this, name, this.keys.readWriteKeys(name),
				HoldBounds.of(this.settings.maxHold()));
	}

	@Override
	public <T extends @Nullable Object> T execute(String name, Duration waitTime, @Nullable Duration leaseTime,
			LockCallback<T> action) {
		return execute(getLock(name), waitTime, leaseTime, action);
	}

	/**
	 * Run {@code action} while holding {@code lock}, as
	 * {@link RedisLockTemplate#execute(String, Duration, Duration, LockCallback)} does.
	 */
	static <T extends @Nullable Object> T execute(RedisLock lock, Duration waitTime, @Nullable Duration leaseTime,
			LockCallback<T> action) {
		Assert.notNull(action, "'action' must not be null");
		if (!lock.tryLock(waitTime, leaseTime)) {
			throw lock.acquisitionFailure(waitTime);
		}
		T result;
		try {
			result = action.doWithLock();
		}
		catch (RuntimeException | Error ex) {
			unlockAfterFailure(lock, ex);
			throw ex;
		}
		catch (Exception ex) {
			unlockAfterFailure(lock, ex);
			throw new UndeclaredThrowableException(ex,
					"Lock callback for '" + Printable.of(lock.getName()) + "' threw " + ex);
		}
		lock.unlock();
		return result;
	}

	/**
	 * Acquire a lock for an asynchronous hold without blocking a thread (see
	 * {@link RedisLock#tryAcquireAsync}).
	 * @param lock a lock of this template (exclusive, a side of a read-write lock, or a
	 * semaphore's: see {@link #semaphoreLock})
	 * @param waitTime how long to wait
	 * @param leaseTime the fixed lease, or {@code null} for a watchdog-renewed one
	 * @return a future of the hold (an {@link AsyncPermit} for a semaphore's lock), or of
	 * empty when the wait time ran out; it completes on one of this template's callback
	 * threads; cancelling it gives up
	 */
	public CompletableFuture<Optional<AsyncHold>> acquireAsync(RedisLock lock, Duration waitTime,
			@Nullable Duration leaseTime) {
		AbstractRedisLock redisLock = checkAcquisition(lock, waitTime, leaseTime);
		CompletableFuture<@Nullable LockHold> acquisition = redisLock.acquireAsync(waitTime.toNanos(), leaseTime);
		CompletableFuture<Optional<AsyncHold>> result = new CompletableFuture<>();
		// The caller's continuation runs on a callback thread, never on Lettuce's I/O
		// thread or a timer.
		acquisition.whenComplete((hold, failure) -> callbacks().execute(() -> {
			if (failure != null) {
				result.completeExceptionally(failure);
				return;
			}
			AsyncHold asyncHold = (hold != null) ? AsyncHold.of(redisLock, hold) : null;
			if (!result.complete(Optional.ofNullable(asyncHold)) && asyncHold != null) {
				// Cancelled meanwhile: nobody will use it.
				asyncHold.releaseAsync();
			}
		}));
		result.whenComplete((hold, failure) -> {
			if (result.isCancelled()) {
				acquisition.cancel(false);
			}
		});
		return result;
	}

	/**
	 * Acquire a lock for an asynchronous hold, as {@link #acquireAsync} does, waiting on
	 * the calling thread: the one way the blocking callers of asynchronous holds
	 * (semaphore permits) wait. Whichever way it stops waiting, nothing is left taken for
	 * a caller that left: an interrupt gives the acquisition up, and the call returns
	 * once an attempt on its way has been answered and what it took given back, or at a
	 * further interrupt (see {@link AsyncAcquisition#await()}).
	 * @param lock a lock of this template
	 * @param waitTime how long to wait
	 * @param leaseTime the fixed lease, or {@code null} for a watchdog-renewed one
	 * @return the hold, or empty when the wait time ran out
	 * @throws InterruptedException when the calling thread was interrupted (the
	 * acquisition is then given up)
	 */
	Optional<AsyncHold> awaitHold(RedisLock lock, Duration waitTime, @Nullable Duration leaseTime)
			throws InterruptedException {
		AbstractRedisLock redisLock = checkAcquisition(lock, waitTime, leaseTime);
		if (Thread.interrupted()) {
			// Interrupted before it asked: nothing is started (the answer to an attempt
			// on a free lock could come before the wait looked at the interrupt).
			throw new InterruptedException("Interrupted before acquiring '" + Printable.of(redisLock.name) + "'");
		}
		LockHold hold = redisLock.startAcquisition(waitTime.toNanos(), leaseTime).await();
		return (hold != null) ? Optional.of(AsyncHold.of(redisLock, hold)) : Optional.empty();
	}

	private AbstractRedisLock checkAcquisition(RedisLock lock, Duration waitTime, @Nullable Duration leaseTime) {
		if (!(lock instanceof AbstractRedisLock redisLock) || redisLock.template != this) {
			throw new IllegalArgumentException("Not a lock of this template: " + lock);
		}
		Assert.notNull(waitTime, "'waitTime' must not be null");
		Assert.isTrue(!waitTime.isNegative(), "'waitTime' must not be negative");
		Assert.isTrue(leaseTime == null || leaseTime.toMillis() > 0, "'leaseTime' must be positive");
		return redisLock;
	}

	@Override
	public RedisSemaphore getSemaphore(String name, int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException(
					"Semaphore '" + Printable.of(name) + "' needs at least 1 permit, not " + permits);
		}
		return new DefaultRedisSemaphore(this, new SemaphoreLock(this, name, this.keys.semaphoreKeys(name), permits,
				HoldBounds.of(this.settings.maxHold()), LockMetricNames.Tag.DERIVED));
	}

	/**
	 * Return the engine lock behind a semaphore of this template, for asynchronous holds
	 * of its permits ({@link #acquireAsync}).
	 * @param semaphore a semaphore of this template
	 * @return its lock
	 */
	public RedisLock semaphoreLock(RedisSemaphore semaphore) {
		if (!(semaphore instanceof DefaultRedisSemaphore ours) || ours.lock().template != this) {
			throw new IllegalArgumentException("Not a semaphore of this template: " + semaphore);
		}
		return ours.lock();
	}

	@Override
	public <T> CompletableFuture<T> executeAsync(String name, Duration waitTime, @Nullable Duration leaseTime,
			Supplier<? extends CompletionStage<T>> action) {
		return executeAsync(name, waitTime, leaseTime, null, action);
	}

	@Override
	public <T> CompletableFuture<T> executeAsync(String name, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable Duration holdAtLeast, Supplier<? extends CompletionStage<T>> action) {
		RedisLock lock = lock(name, holdAtLeast);
		CompletableFuture<Optional<AsyncHold>> acquisition = acquireAsync(lock, waitTime, leaseTime);
		CompletableFuture<T> result = new CompletableFuture<>();
		acquisition.whenComplete((hold, failure) -> {
			if (failure != null) {
				result.completeExceptionally(wrapped(failure));
			}
			else if (hold.isEmpty()) {
				result.completeExceptionally(wrapped(lock.acquisitionFailure(waitTime)));
			}
			else if (result.isDone()) {
				// The caller stopped waiting (cancelled, or timed out) as the hold came:
				// nobody runs the work, the hold goes back.
				hold.get().releaseAsync();
			}
			else {
				completeWith(result, whileHeld(hold.get(), action));
			}
		});
		// A caller that stops waiting for the lock (cancels the future, lets orTimeout
		// fail it, a Mono.fromFuture cancelled) gives the acquisition up: a dependent
		// stage would be skipped, and the hold that came later be renewed for nobody.
		giveUpWith(result, acquisition);
		return result;
	}

	/**
	 * Complete {@code result} as {@code outcome} completes; a failure wrapped as a
	 * dependent stage's ({@code thenCompose}) would be.
	 */
	static <T> void completeWith(CompletableFuture<T> result, CompletionStage<T> outcome) {
		outcome.whenComplete((value, failure) -> {
			if (failure != null) {
				result.completeExceptionally(wrapped(failure));
			}
			else {
				result.complete(value);
			}
		});
	}

	private static CompletionException wrapped(Throwable failure) {
		return (failure instanceof CompletionException completion) ? completion : new CompletionException(failure);
	}

	/**
	 * Give {@code acquisition} up once {@code result} is completed before it, by its
	 * caller.
	 */
	static void giveUpWith(CompletableFuture<?> result, CompletableFuture<?> acquisition) {
		result.whenComplete((value, failure) -> {
			if (!acquisition.isDone()) {
				acquisition.cancel(false);
			}
		});
	}

	/**
	 * Take the named lock for a hold that no thread owns, waiting on the calling thread
	 * for the asynchronous acquisition ({@link #acquireAsync}): an interrupt gives it up,
	 * and nothing is left taken.
	 */
	@Override
	public Optional<LockHandle> tryAcquire(String name, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable Duration holdAtLeast) {
		RedisLock lock = lock(name, holdAtLeast);
		if (Thread.currentThread().isInterrupted()) {
			return Optional.empty();
		}
		try {
			return awaitHold(lock, waitTime, leaseTime).map(LockHandle.class::cast);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
	}

	private RedisLock lock(String name, @Nullable Duration holdAtLeast) {
		RedisLock lock = getLock(name);
		return (holdAtLeast != null && !holdAtLeast.isZero()) ? lock.withHoldAtLeast(holdAtLeast) : lock;
	}

	/**
	 * Run {@code action} under an asynchronous hold and release it when the stage it
	 * returns completes, normally or not; the result completes after the release.
	 * @param <T> the result type
	 * @param hold the hold
	 * @param action starts the work; its synchronous part sees the hold in
	 * {@link io.github.redislock.core.LockContext}
	 * @return the work's result
	 */
	static <T> CompletableFuture<T> whileHeld(AsyncHold hold, Supplier<? extends CompletionStage<T>> action) {
		CompletionStage<T> work;
		try {
			work = hold.runInContext(action);
			if (work == null) {
				throw new IllegalStateException("The asynchronous action under lock '" + Printable.of(hold.lockName())
						+ "' returned null instead of a CompletionStage");
			}
		}
		catch (RuntimeException ex) {
			return hold.releaseAsync().handle((released, releaseFailure) -> {
				if (releaseFailure != null) {
					ex.addSuppressed(releaseFailure);
				}
				throw ex;
			});
		}
		return afterRelease(work, hold::releaseAsync);
	}

	/**
	 * Release once {@code work} has completed, normally or not, and complete the result
	 * after the release: with the work's value, or its failure (a release failure
	 * attached to it), or the release's failure.
	 * @param <T> the result type
	 * @param work the work under the hold
	 * @param release starts the release
	 * @return the work's outcome, after the release
	 */
	static <T> CompletableFuture<T> afterRelease(CompletionStage<T> work, Supplier<CompletableFuture<?>> release) {
		return Completions.afterRelease(work, release);
	}

	/**
	 * A new holder id for an asynchronous hold: negative, so it is never a thread's.
	 */
	long asyncHolderId() {
		return -this.asyncHolders.incrementAndGet();
	}

	/**
	 * Return the threads that asynchronous acquisitions complete on, made on first use.
	 */
	Executor callbacks() {
		ThreadPoolTaskExecutor executor = this.callbacks;
		if (executor == null) {
			synchronized (this) {
				executor = this.callbacks;
				if (executor == null) {
					executor = EngineThreads.unbounded("redislock-async");
					this.callbacks = executor;
				}
			}
		}
		return executor;
	}

	/**
	 * Release after the work failed: the work's failure is what the caller sees, a
	 * failing release is attached to it.
	 * @param lock the lock held by the current thread
	 * @param failure what the work threw
	 */
	static void unlockAfterFailure(RedisLock lock, Throwable failure) {
		try {
			lock.unlock();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Release every lock this instance still holds (owner-checked, keeping what remains
	 * of a hold-at-least), so that a redeploy does not block other instances for a whole
	 * lease, and close the pub/sub subscription; a later wait opens it again. Runs before
	 * the connection factory stops (this template stops in a later phase).
	 */
	@Override
	public void stop() {
		releaseHeldLocks();
		this.signals.unsubscribe();
		this.running = false;
	}

	/**
	 * How long a shutdown waits, in all, for the releases of the holds still held: a
	 * Redis node that does not answer (killed in a failover, hung) must not hold the
	 * shutdown up for a command timeout per hold. A release not answered by then is still
	 * on its way; if it does not run, the hold expires with its lease.
	 */
	static final Duration SHUTDOWN_RELEASE_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Release every hold of this instance in Redis: each is marked lost first ("the
	 * application released it at shutdown"), so work that still runs under it sees
	 * {@link io.github.redislock.core.LockContext#isHeld()} false, and its own unlock
	 * later reports the loss. The releases are sent all at once and waited for
	 * {@link #SHUTDOWN_RELEASE_TIMEOUT} in all.
	 */
	void releaseHeldLocks() {
		Map<LockHold, CompletableFuture<Long>> releases = new LinkedHashMap<>();
		for (LockHold hold : this.holds.all()) {
			if (hold.markLost("the application released it when it shut down, while the work still ran")) {
				CompletableFuture<Long> release;
				try {
					release = this.commands.callAsync(releaseAtShutdown(hold));
				}
				catch (RuntimeException ex) {
					release = CompletableFuture.failedFuture(ex);
				}
				// Threads of this instance may still wait for it, whatever the answer.
				String signalKey = signalKey(hold);
				release.whenComplete((result, ex) -> this.signals.signal(signalKey));
				releases.put(hold, release);
			}
		}
		if (releases.isEmpty()) {
			return;
		}
		try {
			CompletableFuture.allOf(releases.values().toArray(CompletableFuture[]::new))
				.get(SHUTDOWN_RELEASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// Reported per hold below.
		}
		List<String> released = new ArrayList<>();
		releases.forEach((hold, release) -> {
			if (release.isDone() && !release.isCompletedExceptionally()) {
				released.add(Printable.of(hold.name()) + ((hold.holdAtLeastMillis() > 0) ? " (kept for what remains of "
						+ Duration.ofMillis(hold.holdAtLeastMillis()) + " after its acquisition)" : ""));
				return;
			}
			String why = release.isDone() ? release.handle((result, ex) -> String.valueOf(ex)).join()
					: "no answer within " + SHUTDOWN_RELEASE_TIMEOUT;
			logger.warn("Could not release lock '" + Printable.of(hold.name())
					+ "' at shutdown; it expires with its lease: " + why);
		});
		if (!released.isEmpty()) {
			logger.info("Released " + released.size() + " lock(s) still held at shutdown: " + released);
		}
	}

	private String signalKey(LockHold hold) {
		return (hold.kind() == LockKind.READ || hold.kind() == LockKind.WRITE)
				? this.keys.readWriteKeys(hold.name()).write() : hold.key();
	}

	private LockCommands.ScriptCall releaseAtShutdown(LockHold hold) {
		if (hold.kind() == LockKind.SEMAPHORE) {
			return this.commands.releasePermitCall(this.keys.semaphoreKeys(hold.name()), hold.owner(),
					this.signals.releaseMessage(hold.key()));
		}
		if (hold.kind() == LockKind.EXCLUSIVE) {
			return this.commands.releaseCall(hold.key(), hold.owner(), hold.token(),
					this.signals.releaseMessage(hold.key()), hold.holdAtLeastMillis());
		}
		LockKeys.ReadWriteKeys keys = this.keys.readWriteKeys(hold.name());
		return this.readWriteCommands.releaseCall(keys, hold.kind() == LockKind.WRITE, hold.owner(), hold.token(),
				this.signals.releaseMessage(keys.write()), hold.holdAtLeastMillis());
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void destroy() throws Exception {
		// Done already when stopped as a lifecycle bean; not when created by hand.
		releaseHeldLocks();
		this.watchdog.close();
		this.instanceRecordThread.shutdown();
		this.instance.close();
		this.signals.close();
		this.losses.close();
		this.commands.close();
		ThreadPoolTaskExecutor callbacks = this.callbacks;
		if (callbacks != null) {
			callbacks.shutdown();
		}
	}

	/**
	 * Return the connection factory this template's locks live on.
	 * @return the connection factory
	 */
	public RedisConnectionFactory getConnectionFactory() {
		return this.connectionFactory;
	}

	/**
	 * Return the settings this template runs with.
	 * @return the settings
	 */
	public LockSettings getSettings() {
		return this.settings;
	}

	/**
	 * Return how many lock holds threads of this template have now.
	 * @return the number of holds
	 */
	@Override
	public int getActiveHoldCount() {
		return this.holds.size();
	}

	// The engine's parts, for the lock types of this package.

	static long currentThreadId() {
		return Thread.currentThread().getId();
	}

	String ownerId(long threadId) {
		// Each acquisition has an identity of its own: an undo or a late release of one
		// can never touch a later hold of the same thread, and a new hold never passes
		// for an old one (it gets a new token). The thread part lets a writer read
		// (downgrade).
		return this.instanceId + ":" + threadId + ":" + this.acquisitions.incrementAndGet();
	}

	/**
	 * Stop renewing without releasing anything: what a process that died does to its
	 * locks. For tests that play a crash.
	 */
	void stopRenewing() {
		this.watchdog.close();
	}

	String instanceId() {
		return this.instanceId;
	}

	long leaseMillis() {
		return this.settings.leaseTime().toMillis();
	}

	HoldRegistry holds() {
		return this.holds;
	}

	LockCommands commands() {
		return this.commands;
	}

	ReadWriteLockCommands readWriteCommands() {
		return this.readWriteCommands;
	}

	/**
	 * Return how many lock release messages this instance has received so far (for
	 * measuring; an instance receives those of the locks its threads wait for).
	 * @return the count
	 */
	public long releaseMessagesReceived() {
		return this.signals.receivedCount();
	}

	/**
	 * Return on how many locks' release channels this instance listens now: those its
	 * threads wait for.
	 * @return the count
	 */
	public int releaseChannelsListening() {
		return this.signals.listeningCount();
	}

	/**
	 * Send a {@code PING} to Redis on the connection this template's locks use, without
	 * blocking the caller.
	 * @param timeout how long to wait for the answer
	 * @return a future that completes once Redis answered, and fails when it could not be
	 * asked or did not answer within the timeout
	 */
	public CompletableFuture<Void> ping(Duration timeout) {
		return this.commands.pingAsync(timeout);
	}

	/**
	 * Return how the pub/sub connection on which this instance hears lock releases is
	 * doing: {@code idle} (not opened: no thread has waited for a lock yet),
	 * {@code connecting}, {@code connected} or {@code disconnected}.
	 * @return the state
	 */
	public String releaseChannelState() {
		return this.signals.channelState();
	}

	ReleaseSignals signals() {
		return this.signals;
	}

	/**
	 * The last hold of a lock was released, and Redis no longer had it as ours.
	 */
	void released(LockHold hold, String reason) {
		this.losses.releasedLost(hold, reason);
	}

}
