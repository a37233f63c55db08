package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.LockKind;
import io.github.redislock.core.LockObserver;
import io.github.redislock.support.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Base of the {@link io.github.redislock.core.RedisLock RedisLock} types: local re-entry,
 * the acquire-or-wait loop, release and loss reporting. Subclasses supply the scripts.
 * <p>
 * Acquiring, extending and releasing are one script call each; re-entry by the holding
 * thread is counted locally and costs no round trip, so a command re-sent after a
 * reconnect can never count a hold twice. A thread that finds the lock taken parks until
 * a release message wakes it, or until the obstacle's lease would have run out.
 *
 * <h2>States</h2>
 * <p>
 * A <em>hold</em> ({@link LockHold}) is made when an acquire script answers a fencing
 * token, and is registered in the {@link HoldRegistry} under (lock key, thread id), or
 * under a negative holder id for an asynchronous hold, which so never re-enters. While
 * registered it is <em>held</em>; a watchdog hold is also <em>renewing</em> while
 * {@link LockHold#renewable()} (not lost, {@code maxHold} not reached; a fixed lease is
 * never renewed). An <em>extension</em>
 * ({@link ThreadOwnedLock#extend(LockHold, long, long)}, one script call,
 * {@link #extendInRedis}) makes it <em>fixed</em> for good: from
 * {@link LockHold#fixLease()}, before the call is sent, the watchdog leaves it alone, and
 * the answer sets its deadline to the new lease from when the call was sent
 * ({@link LockHold#extended}). It is <em>lost</em> once {@link LockHold#markLost} gave it
 * a reason (at most once), and counts as lost as soon as its local deadline passed (from
 * when the acquire or last renewal or extension was sent, so never after the lease in
 * Redis): {@link LockHold#isHeld()} reads the clock. A lost hold stays registered until
 * its owner releases it; it is never re-entered: its thread asking for the lock again
 * <em>abandons</em> it ({@link LockHold#abandon()}, {@link #abandon}: given back in
 * Redis, owner-checked) and makes a fresh acquisition, whose hold replaces it in the
 * registry with its count ({@link LockHold#absorb}; see {@link ThreadOwnedLock}). The
 * last exit (or {@link AsyncHold#release()}) makes it <em>released</em>:
 * {@link LockHold#releasing()}, out of the registry, then the release script
 * ({@link #releaseLast}, {@link #releaseAsync}; none for an abandoned hold); one that
 * fails is sent again by {@link PendingReleases}.
 * <p>
 * An <em>acquisition</em>, {@link Acquisition} (blocking) or {@link AsyncAcquisition}
 * (futures), goes through the same states: <em>attempting</em> (one script call; after a
 * connection failure, a pause of {@link #CONNECTION_RETRY_NANOS} and another attempt
 * within the wait time), <em>subscribing</em> (after its first failed attempt it is a
 * registered {@link ReleaseSignals.Waiter}, until this instance listens on the lock's
 * release channel), <em>waiting</em> (for a wake-up, at most the {@link Obstacle}'s lease
 * left and the wait time), and one end: <em>acquired</em>, <em>not acquired</em> (the
 * wait time ran out), <em>failed</em> (an exception), or, asynchronously,
 * <em>cancelled</em>. Whatever the end, its {@code finish} runs once: the replica-ack
 * connection goes back ({@link LockCommands#acquisitionEnded}), the waiter is
 * unregistered, a writer that gives up withdraws its waiting marker ({@link #gaveUp}),
 * and a shared lock wakes the next waiter ({@link #sharesWithWaiters()}).
 *
 * <h2>Threads</h2>
 * <ul>
 * <li>The caller's thread runs an {@link Acquisition} from start to end, re-entry and
 * {@code unlock} ({@link ThreadOwnedLock}) and the blocking release; besides its own
 * Redis calls it parks only in {@link ReleaseSignals.Waiter#await},
 * {@link ReleaseSignals.Waiter#awaitSubscribed} and the retry {@link #pause}.</li>
 * <li>The pub/sub thread (Lettuce's I/O thread, or the listener container's) only wakes
 * ({@link ReleaseSignals#signal}): it gives a parked waiter its permit, or completes an
 * asynchronous waiter's future, and the {@link AsyncAcquisition#attempt()} chained to it
 * sends the next attempt from that thread.</li>
 * <li>Lettuce's I/O thread (the answers), the {@link AsyncTimeouts} timer (wait bounds,
 * pauses) and, for calls that block (replica acknowledgement, a client other than
 * Lettuce), the threads of {@link LockCommands#blockingCalls()} move an
 * {@link AsyncAcquisition}, which waits on none of them: withdrawing a writer's marker
 * goes to the blocking-call threads, and the hold reaches the caller on the template's
 * {@link DefaultRedisLockTemplate#callbacks() callback threads}, where what follows an
 * asynchronous release runs too.</li>
 * <li>The watchdog's scheduler ({@link WatchdogRenewer}) renews every third of the lease,
 * re-sends {@link PendingReleases} each tick, handles the renewals' answers and checks
 * the deadlines. A loss it finds is marked, logged and counted there, and the holder
 * interrupted when so configured ({@link LockLossReporter#lost}); one found by a release
 * is reported on the releasing thread.</li>
 * <li>{@link LockLostListener}s run on one thread of their own, in order, so a slow one
 * holds up no renewal.</li>
 * </ul>
 *
 * <h2>Races, and where they are closed</h2>
 * <ul>
 * <li>A release between a failed attempt and the subscription: the waiter registers only
 * after a failed attempt, so once subscribed (or refused, or out of time) it attempts
 * again before it waits ({@link Acquisition#run()}, {@code AsyncAcquisition.answered}). A
 * wake-up that comes before the waiter parks is kept as its permit (an asynchronous
 * waiter looks again after setting its future, {@link ReleaseSignals.Waiter#next}); one
 * that a leaving waiter did not use goes to the next ({@link ReleaseSignals#unregister});
 * messages the Lettuce channels may have lost wake the longest waiter
 * ({@code ReleaseSignals.onGap}), and every wait ends by the obstacle's lease
 * anyway.</li>
 * <li>This instance's own releases: it ignores its own release messages, so every release
 * and undo wakes its waiters itself ({@link #wakeLocalWaiters()}, also after an undo for
 * too few replica acknowledgements, {@link #wakingAfterUndo}); one that failed and may
 * still run makes its own messages wake them for a lease
 * ({@link #releaseUnsettled()}).</li>
 * <li>An interrupt during a script call: {@link #interruptedDuring} clears it so that
 * Redis can still be reached, and the attempt, which may have run, is undone,
 * owner-checked ({@link #undo}); likewise the last attempt that got no answer within the
 * wait time ({@link #unreachable}) and one followed by an interrupt in the retry pause.
 * An interrupted release is sent once more ({@code release}). An interrupt while waiting
 * ends an interruptible acquisition through {@code finish}; a non-interruptible one
 * ({@code lock()}) waits on and restores the interrupt at its end.</li>
 * <li>A stray undo or a late re-sent release: every acquisition has an owner id of its
 * own ({@link DefaultRedisLockTemplate#ownerId}), so neither touches a later hold of the
 * same thread.</li>
 * <li>Loss found by a renewal vs by the release: a hold leaves the registry before its
 * release is sent, and a renewal that found the lock gone reports only a hold still
 * registered ({@code WatchdogRenewer.renewed}). {@link LockHold#markLost} is the one
 * gate: only the first to find the loss (a renewal, the deadline check, the release's
 * answer via {@link DefaultRedisLockTemplate#released}; the shutdown marks without
 * reporting) logs it, counts it and sends its event. A holder that began to release is
 * not interrupted ({@link LockHold#interruptHolder} and {@link LockHold#releasing()}
 * share a monitor).</li>
 * <li>Re-entry: counted in the hold, by its own thread only, never in Redis; never into a
 * hold that is lost or past its deadline ({@link LockHold#reenter} answers false), which
 * its thread abandons for a fresh attempt instead.</li>
 * <li>Extension vs renewal: a renewal sent before the extension may be answered, or even
 * run in Redis, after it. Its answer is ignored once the hold is fixed
 * ({@code WatchdogRenewer.renewed}, {@link LockHold#renewed}, which share the hold's
 * monitor with {@link LockHold#fixLease()}), and in Redis it changes nothing: the
 * extension marks the hash {@code fixed}, which {@code renew.lua} skips, and never
 * shortens a reader's or permit's entry. Extensions of one hold take turns
 * ({@link LockHold#extending()}), so the deadline is always the last one's.</li>
 * <li>Extension vs release (of a handle, from another thread): an extension after the
 * release began answers false without a call; one that reaches Redis after the release
 * finds the hold gone or {@code kept} and changes nothing; neither reports a loss.
 * Extension vs loss: one that finds the hold gone reports it through
 * {@link LockHold#markLost}, the same gate as a renewal; one whose answer comes after the
 * deadline check found the hold lost answers false, since a loss once reported
 * stands.</li>
 * <li>Asynchronous completion vs cancellation: cancelling the future finishes the
 * acquisition ({@code finish} runs once, by compare-and-set); a token that comes after is
 * released at once, owner-checked ({@link #undoAsync}), and so is one whose completion
 * loses to a cancel at that very moment; one that got no answer is undone when the
 * acquisition ends without the lock. One level up, the template releases a hold handed
 * over after its caller cancelled ({@link DefaultRedisLockTemplate#acquireAsync}). A
 * caller that waits on its own thread and is interrupted, or whose acquisition failed,
 * returns only once the acquisition has settled: no attempt under way, and what one took
 * given back ({@link AsyncAcquisition#await()}), as an interrupted {@link Acquisition}
 * undoes its attempt before it throws; interrupted again meanwhile, it returns at once
 * and the acquisition settles without it.</li>
 * </ul>
 */
abstract class AbstractRedisLock extends ThreadOwnedLock {

	private static final Log logger = LogFactory.getLog(AbstractRedisLock.class);

	/**
	 * Lettuce's exception for a command whose caller was interrupted; resolved by name so
	 * that applications on another client do not need Lettuce.
	 */
	private static final @Nullable Class<?> LETTUCE_INTERRUPTED = ClassUtils
		.isPresent("io.lettuce.core.RedisCommandInterruptedException", AbstractRedisLock.class.getClassLoader())
				? ClassUtils.resolveClassName("io.lettuce.core.RedisCommandInterruptedException",
						AbstractRedisLock.class.getClassLoader())
				: null;

	protected final DefaultRedisLockTemplate template;

	/** Key that waiters wait on and release messages name. */
	protected final String signalKey;

	AbstractRedisLock(DefaultRedisLockTemplate template, String name, String key, String signalKey, HoldBounds bounds,
			LockMetricNames.Tag metricTag) {
		super(name, key, bounds, metricTag);
		this.template = template;
		this.signalKey = signalKey;
	}

	@Override
	HoldRegistry holds() {
		return this.template.holds();
	}

	@Override
	LockLossReporter losses() {
		return this.template.losses();
	}

	/**
	 * A failed attempt's result at or below minus this means: the lock is free but
	 * reserved for a waiting writer; the rest is the reservation's remaining ms.
	 */
	static final long RESERVED_FOR_WRITER = 1L << 40;

	static final long CONNECTION_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	/**
	 * The script call that tries once to take the lock: it answers the fencing token when
	 * acquired, otherwise minus the milliseconds after which the obstacle's lease runs
	 * out (see {@link #RESERVED_FOR_WRITER}).
	 */
	abstract LockCommands.ScriptCall acquireCall(String owner, long leaseMillis, boolean willWait, boolean othersWait);

	/**
	 * The script call that releases the lock if {@code owner} holds it.
	 * @param token the hold's fencing token, or 0 when unknown (undoing an acquire whose
	 * answer never came)
	 * @param holdAtLeastMillis keep the hold until this long after the token was issued
	 * instead of deleting it (0: delete now)
	 * @see #tryRelease
	 */
	abstract LockCommands.ScriptCall releaseCall(String owner, long token, long holdAtLeastMillis);

	/**
	 * The script call that extends the hold of {@code owner} to a new fixed lease of
	 * {@code leaseMillis} from now, owner-checked: it answers 1 when extended, 0 when the
	 * hold is gone, -1 when another owner holds the lock (left untouched).
	 * @param holdAtLeastMillis the hold-at-least to count from the extension (0: none,
	 * and none recorded by an earlier extension stays)
	 */
	abstract LockCommands.ScriptCall extendCall(String owner, long leaseMillis, long holdAtLeastMillis);

	/**
	 * Try once to take the lock.
	 * @return the fencing token when acquired, otherwise minus the milliseconds after
	 * which the obstacle's lease runs out (see {@link #RESERVED_FOR_WRITER})
	 */
	long tryAcquire(String owner, long leaseMillis, boolean willWait, boolean othersWait) {
		return this.template.commands()
			.acquiring(wakingAfterUndo(acquireCall(owner, leaseMillis, willWait, othersWait)));
	}

	/**
	 * The acquisition's call with an undo (too few replicas confirmed it) that wakes this
	 * instance's waiters afterwards, whatever its outcome: the lock it took for a moment
	 * may be free again, and the message the undo publishes never wakes this instance.
	 */
	LockCommands.ScriptCall wakingAfterUndo(LockCommands.ScriptCall call) {
		Runnable undo = call.undo();
		return new LockCommands.ScriptCall(call.script(), call.keys(), call.args(), call.what(), () -> {
			try {
				undo.run();
			}
			catch (RuntimeException ex) {
				releaseUnsettled();
				throw ex;
			}
			finally {
				wakeLocalWaiters();
			}
		}, call.undoCall());
	}

	/**
	 * Wake the longest waiting thread of this instance for this lock: after every release
	 * and undo by this instance, whatever its outcome (its own release messages do not
	 * wake it).
	 */
	void wakeLocalWaiters() {
		this.template.signals().signal(this.signalKey);
	}

	/**
	 * A release or undo of this instance failed and may still run later: its message then
	 * wakes this instance's waiters too.
	 */
	void releaseUnsettled() {
		this.template.signals().unsettled(this.signalKey, this.template.leaseMillis());
	}

	/**
	 * Release the lock if {@code owner} holds it.
	 * @return 1 released (also when this is a re-sent run of a release that already
	 * released it), 0 the hold was gone, -1 another owner holds it
	 */
	long tryRelease(String owner, long token, long holdAtLeastMillis) {
		return this.template.commands().call(releaseCall(owner, token, holdAtLeastMillis));
	}

	/**
	 * Return the kind of lock, for metrics.
	 */
	abstract LockKind kind();

	/**
	 * Checks before the calling thread, which does not hold this lock yet, acquires it.
	 */
	void checkAcquire(long threadId) {
	}

	/**
	 * Called when a thread that waited gives up without the lock.
	 */
	void gaveUp(String owner) {
	}

	/**
	 * Whether an acquisition should wake the next waiting thread of this instance, which
	 * may be able to hold the lock at the same time.
	 */
	boolean sharesWithWaiters() {
		return false;
	}

	String releaseMessage() {
		return this.template.signals().releaseMessage(this.signalKey);
	}

	@Override
	boolean acquireNew(long threadId, long waitNanos, @Nullable Duration leaseTime, boolean interruptible)
			throws InterruptedException {
		checkAcquire(threadId);
		if (interruptible && Thread.interrupted()) {
			throw new InterruptedException();
		}
		this.template.pendingReleases().retry(this.key);
		return new Acquisition(this, threadId, waitNanos, leaseTime, interruptible).run();
	}

	/**
	 * Acquire this lock for an asynchronous hold, without blocking a thread: each attempt
	 * is an asynchronous script call, and a waiting acquisition is a pending future that
	 * a release message (or the obstacle's lease running out) moves on. The hold belongs
	 * to the call, not to a thread: it never re-enters another hold, and any thread may
	 * release it.
	 * @param waitNanos how long to wait (negative: without limit)
	 * @param leaseTime the fixed lease, or {@code null} for a watchdog-renewed one
	 * @return a future of the hold, or of {@code null} when the wait time ran out; it
	 * fails with {@link LockAcquisitionException} when Redis could not be reached within
	 * the wait time; cancelling it gives up (and releases a hold that came meanwhile)
	 */
	CompletableFuture<@Nullable LockHold> acquireAsync(long waitNanos, @Nullable Duration leaseTime) {
		return startAcquisition(waitNanos, leaseTime).result();
	}

	/**
	 * Start an asynchronous acquisition of this lock, as {@link #acquireAsync} does, for
	 * a caller that also needs to know when it has settled
	 * ({@link AsyncAcquisition#await}).
	 */
	AsyncAcquisition startAcquisition(long waitNanos, @Nullable Duration leaseTime) {
		AsyncAcquisition acquisition = new AsyncAcquisition(this, waitNanos, leaseTime);
		acquisition.attempt();
		return acquisition;
	}

	@Override
	@SuppressWarnings("unchecked")
	public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
		// The acquisition's own future, so that cancelling it gives the acquisition up.
		return (CompletableFuture<Optional<LockHandle>>) (CompletableFuture<?>) this.template.acquireAsync(this,
				waitTime, leaseTime);
	}

	/**
	 * Return the exception for this lock not acquired, with the replicas' shortfall when
	 * too few confirmed the calling thread's last attempt.
	 */
	@Override
	public LockAcquisitionException acquisitionFailure(Duration waitTime) {
		String shortfall = this.template.commands().lastShortfall();
		return (shortfall != null) ? new LockAcquisitionException(this.name, waitTime, shortfall)
				: new LockAcquisitionException(this.name, waitTime);
	}

	/**
	 * Release an asynchronous hold, without blocking a thread.
	 * @return a future that completes once Redis answered; it fails with
	 * {@link io.github.redislock.core.LockLostException} when the hold had been lost and
	 * {@code redislock.on-lock-lost=throw}
	 */
	@Override
	CompletableFuture<@Nullable Void> releaseAsync(LockHold hold) {
		// What follows the release runs on a callback thread, never on Lettuce's I/O
		// thread (a caller that talks to Redis there would wait on itself).
		return sendRelease(hold).handleAsync((result, failure) -> afterRelease(hold, result, failure),
				this.template.callbacks());
	}

	/**
	 * Release an asynchronous hold and wait for it on the calling thread, which then runs
	 * what follows the release itself (a blocking {@code close()} of a permit or a
	 * handle): the same steps as {@link #releaseAsync}, without handing them to a
	 * callback thread and back. Not interruptible, as waiting for {@link #releaseAsync}
	 * is not.
	 * @param hold the hold
	 * @throws CompletionException as the future of {@link #releaseAsync} fails
	 */
	@Override
	void releaseBlocking(LockHold hold) {
		CompletableFuture<Long> answer = sendRelease(hold);
		Long result = null;
		Throwable failure = null;
		try {
			result = answer.join();
		}
		catch (CompletionException | java.util.concurrent.CancellationException ex) {
			failure = ex;
		}
		afterRelease(hold, result, failure);
	}

	private CompletableFuture<Long> sendRelease(LockHold hold) {
		hold.releasing();
		holds().remove(hold);
		this.template.observer()
			.released(hold.metricName(), hold.kind(), Duration.ofNanos(System.nanoTime() - hold.acquiredNanos()));
		try {
			return this.template.commands()
				.callAsync(releaseCall(hold.owner(), hold.token(), hold.holdAtLeastMillis()));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private @Nullable Void afterRelease(LockHold hold, @Nullable Long result, @Nullable Throwable failure) {
		// Whatever the outcome: a release that timed out may have run.
		wakeLocalWaiters();
		if (failure != null || result == null) {
			// The hold may still be in Redis: send the release again later.
			this.template.pendingReleases().failed(this, hold.owner(), hold.token(), hold.holdAtLeastMillis());
			releaseUnsettled();
			throw (failure instanceof CompletionException completion) ? completion
					: new CompletionException((failure != null) ? failure : new IllegalStateException(
							"No answer to the release of '" + Printable.of(this.name) + "'"));
		}
		if (result != 1) {
			this.template.released(hold, (result == 0) ? "it had expired or was deleted when released"
					: "another owner held it when released");
		}
		return null;
	}

	/**
	 * Release, owner-checked, what an asynchronous attempt took or may have taken, and
	 * wake this instance's waiters once Redis answered, whatever it answered.
	 * @return a future that completes once that is done, also when the undo failed
	 */
	CompletableFuture<@Nullable Void> undoAsync(String owner, long token) {
		CompletableFuture<Long> undone;
		try {
			undone = this.template.commands().callAsync(releaseCall(owner, token, 0));
		}
		catch (RuntimeException ex) {
			undone = CompletableFuture.failedFuture(ex);
		}
		return undone.handle((released, ex) -> {
			if (ex != null) {
				releaseUnsettled();
			}
			wakeLocalWaiters();
			return null;
		});
	}

	/**
	 * What an attempt that did not acquire the lock found in its way.
	 *
	 * @param leaseLeftMillis how long until the obstacle's lease runs out
	 * @param onlyWaitingWriter whether the lock is free but reserved for a waiting writer
	 */
	record Obstacle(long leaseLeftMillis, boolean onlyWaitingWriter) {

		/**
		 * Decode a failed attempt's result: minus the obstacle's remaining lease, offset
		 * by {@link #RESERVED_FOR_WRITER} when only a waiting writer's reservation stands
		 * in the way.
		 */
		static Obstacle of(long result) {
			long left = -result;
			return (left >= RESERVED_FOR_WRITER) ? new Obstacle(left - RESERVED_FOR_WRITER, true)
					: new Obstacle(left, false);
		}

	}

	/**
	 * Tell the observer that a wait ended without the lock: skipped when the caller skips
	 * its work then, else timed out.
	 */
	static void timedOut(LockObserver observer, String metricName, LockKind kind, Duration waited, boolean skipping) {
		if (skipping) {
			observer.skipped(metricName, kind, waited);
		}
		else {
			observer.notAcquired(metricName, kind, waited, false);
		}
	}

	/**
	 * Say why an acquisition (a skipped run, say) ended without the lock, naming the
	 * instance that holds it; costs a read, so only for the debug log.
	 */
	String notAcquired(long result, long waitNanos) {
		String prefix = "Lock '" + Printable.of(this.name) + "' (" + kind().tag() + ") not acquired within "
				+ Duration.ofNanos(Math.max(0, waitNanos)) + ": ";
		if (result == LockCommands.NOT_ACKNOWLEDGED) {
			String shortfall = this.template.commands().lastShortfall();
			if (shortfall != null) {
				return prefix + "not acknowledged, " + shortfall;
			}
		}
		String holder;
		try {
			holder = this.template.commands().owner(this.signalKey);
		}
		catch (RuntimeException ex) {
			holder = null;
		}
		long leaseLeft = Obstacle.of(result).leaseLeftMillis();
		if (holder == null) {
			return prefix + ((kind() == LockKind.EXCLUSIVE) ? "held (it expired just now)"
					: "held by readers, or reserved for a waiting writer") + ", " + leaseLeft + "ms left";
		}
		String instance = holder.substring(0, Math.max(0, holder.indexOf(':')));
		return prefix + "held by instance " + Printable.of(instance)
				+ (instance.equals(this.template.instanceId()) ? " (this one, another thread or call)" : "")
				+ ", lease left " + leaseLeft + "ms";
	}

	void giveUp(String owner) {
		try {
			gaveUp(owner);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not withdraw the waiting sign of lock '" + Printable.of(this.name)
					+ "' after giving up; it expires by itself within one lease: " + ex);
		}
	}

	@Override
	void releaseLast(LockHold hold) {
		this.template.observer()
			.released(hold.metricName(), hold.kind(), Duration.ofNanos(System.nanoTime() - hold.acquiredNanos()));
		long result;
		try {
			result = release(hold.owner(), hold.token(), hold.holdAtLeastMillis());
		}
		catch (RuntimeException ex) {
			// The hold may still be in Redis: send the release again later; if it runs
			// after all, its message wakes this instance's waiters too.
			this.template.pendingReleases().failed(this, hold.owner(), hold.token(), hold.holdAtLeastMillis());
			releaseUnsettled();
			throw ex;
		}
		finally {
			wakeLocalWaiters();
		}
		if (result == 1) {
			// Our owner id was on the lock all along: nobody else can have held it.
			return;
		}
		this.template.released(hold,
				(result == 0) ? "it had expired or was deleted when released" : "another owner held it when released");
	}

	@Override
	void abandon(LockHold hold) {
		this.template.observer()
			.released(hold.metricName(), hold.kind(), Duration.ofNanos(System.nanoTime() - hold.acquiredNanos()));
		try {
			release(hold.owner(), hold.token(), hold.holdAtLeastMillis());
		}
		catch (RuntimeException ex) {
			// Sent again later (and before the fresh attempt, by acquireNew); if it runs
			// after all, its message wakes this instance's waiters too.
			this.template.pendingReleases().failed(this, hold.owner(), hold.token(), hold.holdAtLeastMillis());
			releaseUnsettled();
		}
		finally {
			wakeLocalWaiters();
		}
	}

	@Override
	@Nullable String extendInRedis(LockHold hold, long leaseMillis, long holdAtLeastMillis) {
		LockCommands.ScriptCall call = extendCall(hold.owner(), leaseMillis, holdAtLeastMillis);
		long sent = System.nanoTime();
		long result;
		try {
			result = this.template.commands().call(call);
		}
		catch (RuntimeException ex) {
			if (!interruptedDuring(ex)) {
				throw ex;
			}
			// Interrupted while it was on its way: it may or may not have run. Sent once
			// more (it is safe to run twice), the interrupt kept for the caller.
			try {
				result = this.template.commands().call(call);
			}
			finally {
				Thread.currentThread().interrupt();
			}
		}
		if (result == 1) {
			hold.extended(sent, TimeUnit.MILLISECONDS.toNanos(leaseMillis));
			return null;
		}
		return (result == 0) ? "an extension found it expired or deleted"
				: "an extension found it held by another owner";
	}

	private long release(String owner, long token, long holdAtLeastMillis) {
		try {
			return tryRelease(owner, token, holdAtLeastMillis);
		}
		catch (RuntimeException ex) {
			if (!interruptedDuring(ex)) {
				throw ex;
			}
			// An interrupt must not leave the lock behind for the rest of its lease.
			try {
				return tryRelease(owner, token, holdAtLeastMillis);
			}
			finally {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Redis did not answer within the wait time. An acquire that timed out may still run
	 * once Redis answers again: undo it, owner-checked, on the same connection, so that
	 * it runs after it; if Redis does not take that either, the stray hold lasts at most
	 * one lease, as nobody renews it.
	 */
	LockAcquisitionException unreachable(String owner, long waitNanos, RuntimeException ex) {
		undo(owner, ex);
		return new LockAcquisitionException(this.name, Duration.ofNanos(Math.max(0, waitNanos)), ex);
	}

	/**
	 * Release, owner-checked, what an attempt that got no answer may have acquired. Sent
	 * on the same connection after the attempt, so it runs after it; if Redis does not
	 * take it either, the stray hold lasts at most one lease, as nobody renews it.
	 */
	void undo(String owner, Throwable failure) {
		try {
			tryRelease(owner, 0, 0);
		}
		catch (RuntimeException undoFailed) {
			failure.addSuppressed(undoFailed);
			releaseUnsettled();
		}
		finally {
			wakeLocalWaiters();
		}
	}

	static void pause(long nanos, boolean interruptible) throws InterruptedException {
		try {
			TimeUnit.NANOSECONDS.sleep(nanos);
		}
		catch (InterruptedException ex) {
			if (interruptible) {
				throw ex;
			}
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Whether a Redis call failed because the calling thread was interrupted; clears the
	 * interrupt status so that the caller can still talk to Redis.
	 */
	static boolean interruptedDuring(RuntimeException ex) {
		boolean interrupted = Thread.interrupted();
		for (Throwable cause = ex; cause != null && !interrupted; cause = cause.getCause()) {
			interrupted = cause instanceof InterruptedException
					|| (LETTUCE_INTERRUPTED != null && LETTUCE_INTERRUPTED.isInstance(cause));
		}
		return interrupted;
	}

	/**
	 * Delete this lock's hold in Redis, whoever holds it, and wake the waiters; the
	 * holders find their holds lost.
	 */
	@Override
	public boolean forceUnlock() {
		boolean deleted = this.template.commands().forceUnlock(this.key, this.signalKey, releaseMessage());
		wakeLocalWaiters();
		return deleted;
	}

}
