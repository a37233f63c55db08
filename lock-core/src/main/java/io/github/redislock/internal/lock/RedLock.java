package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockHolder;
import io.github.redislock.core.LockKind;
import io.github.redislock.core.LockObserver;
import io.github.redislock.support.Printable;
import org.jspecify.annotations.Nullable;
import io.github.redislock.support.CurrentLocks;

import org.springframework.core.NestedExceptionUtils;

/**
 * Exclusive {@link io.github.redislock.core.RedisLock RedisLock} taken with the RedLock
 * algorithm; see {@link RedLockTemplate}. Waiting is by retrying after a random delay
 * (there is no shared release channel across independent nodes).
 */
final class RedLock extends ThreadOwnedLock {

	/**
	 * How many nodes granted the calling thread's last failed attempt, for the message.
	 */
	/** What this thread's last failed attempt got from the nodes (for its exception). */
	private static final ThreadLocal<AttemptOutcome> LAST_ATTEMPT = ThreadLocal
		.withInitial(() -> new AttemptOutcome(0, 0, null));

	private final RedLockTemplate template;

	RedLock(RedLockTemplate template, String name, String key, HoldBounds bounds) {
		this(template, name, key, bounds, LockMetricNames.Tag.DERIVED);
	}

	private RedLock(RedLockTemplate template, String name, String key, HoldBounds bounds,
			LockMetricNames.Tag metricTag) {
		super(name, key, bounds, metricTag);
		this.template = template;
	}

	@Override
	RedLock copy(HoldBounds bounds, LockMetricNames.Tag metricTag) {
		return new RedLock(this.template, this.name, this.key, bounds, metricTag);
	}

	@Override
	HoldRegistry holds() {
		return this.template.holds();
	}

	@Override
	boolean acquireNew(long threadId, long waitNanos, @Nullable Duration leaseTime, boolean interruptible)
			throws InterruptedException {
		long lease = (leaseTime != null) ? leaseTime.toMillis() : this.template.settings().leaseTime().toMillis();
		RedLockSettings redlock = this.template.redlock();
		int quorum = this.template.getQuorum();
		String metricName = LockMetricNames.of(this.name, this.metricTag, this.template.losses().metricNames());
		boolean skipping = this.metricTag.skipping();
		LockObserver observer = this.template.losses().observer();
		long start = System.nanoTime();
		while (true) {
			if (interruptible && Thread.interrupted()) {
				// Checked before anything is sent: nothing to undo.
				throw new InterruptedException("Interrupted while acquiring lock '" + Printable.of(this.name) + "'");
			}
			// An identity per attempt: the undo of an attempt whose answers came
			// late reaches the nodes in no set order with the next attempt, and
			// must never remove what that one was granted.
			String owner = this.template.ownerId(threadId);
			long attemptStart = System.nanoTime();
			List<CompletableFuture<Long>> attempts = this.template
				.startOnAllNodes((node) -> node.acquire(this.key, owner, lease, false, false, ""));
			List<@Nullable Long> results = this.template.answers(attempts);
			if (interruptible && Thread.interrupted()) {
				// Interrupted while the nodes answered: what they granted goes back, as
				// for a failed attempt, and the caller stops waiting.
				this.template.afterEach(attempts, (node) -> node.release(this.key, owner, 0, "", 0));
				throw new InterruptedException("Interrupted while acquiring lock '" + Printable.of(this.name) + "'");
			}
			long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - attemptStart);
			long granted = results.stream().filter((result) -> result != null && result > 0).count();
			long validity = lease - elapsed - redlock.driftMillis(lease);
			if (granted >= quorum && validity > 0) {
				long token = results.stream().filter(Objects::nonNull).mapToLong(Long::longValue).max().orElse(1);
				LockHold hold = new LockHold(this.name, this.key, owner, threadId, token, leaseTime == null,
						attemptStart, TimeUnit.MILLISECONDS.toNanos(lease - redlock.driftMillis(lease)),
						LockKind.EXCLUSIVE, metricName, boundsFromAnswer(elapsed));
				this.template.holds().add(hold);
				CurrentLocks.entered(hold);
				observer.acquired(metricName, LockKind.EXCLUSIVE, Duration.ofNanos(System.nanoTime() - start));
				return true;
			}
			// Not held: undo the partial grant everywhere, also where no answer came,
			// each after the attempt has run on that node (however late), so that it
			// can never run before it and leave a stray grant behind.
			this.template.afterEach(attempts, (node) -> node.release(this.key, owner, 0, "", 0));
			LAST_ATTEMPT.set(AttemptOutcome.of(granted, attempts));
			long remaining = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
			if (remaining <= 0) {
				AbstractRedisLock.timedOut(observer, metricName, LockKind.EXCLUSIVE,
						Duration.ofNanos(System.nanoTime() - start), skipping);
				return false;
			}
			long mean = redlock.retryDelay().toNanos();
			long pause = ThreadLocalRandom.current().nextLong(mean / 2, mean + mean / 2 + 1);
			TimeUnit.NANOSECONDS.sleep(Math.min(pause, remaining));
		}
	}

	/**
	 * Acquire for an asynchronous hold, on the calling thread (RedLock's calls to its
	 * nodes are made in parallel, then waited for): the hold is taken under
	 * {@code holderId} and belongs to no thread.
	 * @return the hold, or {@code null} when the wait time ran out
	 * @throws InterruptedException when the calling thread was interrupted (what the
	 * nodes granted is given back)
	 */
	@Nullable LockHold acquireDetached(long holderId, Duration waitTime, @Nullable Duration leaseTime)
			throws InterruptedException {
		boolean acquired = acquireNew(holderId, waitTime.toNanos(), leaseTime, true);
		if (!acquired) {
			return null;
		}
		LockHold hold = this.template.holds().get(this.key, holderId);
		if (hold == null) {
			throw new IllegalStateException("RedLock hold of '" + Printable.of(this.name) + "' not registered");
		}
		CurrentLocks.exited(hold);
		hold.detachFromThread();
		return hold;
	}

	/**
	 * Release a hold taken by {@link #acquireDetached}, on the calling thread.
	 */
	void releaseDetached(LockHold hold) {
		hold.releasing();
		this.template.holds().remove(hold);
		releaseLast(hold);
	}

	@Override
	CompletableFuture<@Nullable Void> releaseAsync(LockHold hold) {
		try {
			return CompletableFuture.runAsync(() -> releaseDetached(hold), this.template.calls());
		}
		catch (java.util.concurrent.RejectedExecutionException ex) {
			// The template is closed: its shutdown released what it held.
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	LockLossReporter losses() {
		return this.template.losses();
	}

	@Override
	void abandon(LockHold hold) {
		this.template.losses()
			.observer()
			.released(hold.metricName(), hold.kind(), Duration.ofNanos(System.nanoTime() - hold.acquiredNanos()));
		releaseOnNodes(hold);
	}

	/**
	 * Extend the hold on every node, owner-checked, in parallel: extended when a majority
	 * confirmed it within the new lease's validity (the lease less the time the calls
	 * took and the drift allowance); the local deadline is then the start of the calls
	 * plus the lease less the drift. Otherwise the hold counts as lost: nodes that
	 * extended it keep it for that lease at most, and its release gives it back there.
	 * Each node records a hold-at-least counted from its own clock when it ran the
	 * extension.
	 */
	@Override
	@Nullable String extendInRedis(LockHold hold, long leaseMillis, long holdAtLeastMillis) {
		RedLockSettings redlock = this.template.redlock();
		long start = System.nanoTime();
		List<@Nullable Long> results = this.template
			.onAllNodes((node) -> node.call(node.extendCall(this.key, hold.owner(), leaseMillis, holdAtLeastMillis)));
		long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		long extended = results.stream().filter((result) -> result != null && result == 1).count();
		long validity = leaseMillis - elapsed - redlock.driftMillis(leaseMillis);
		if (extended >= this.template.getQuorum() && validity > 0) {
			hold.extended(start, TimeUnit.MILLISECONDS.toNanos(leaseMillis - redlock.driftMillis(leaseMillis)));
			return null;
		}
		return "an extension was confirmed by only " + extended + " of " + this.template.getNodeCount()
				+ " RedLock nodes" + ((extended >= this.template.getQuorum()) ? ", after its validity" : "") + " ("
				+ this.template.getQuorum() + " needed)";
	}

	@Override
	public LockAcquisitionException acquisitionFailure(Duration waitTime) {
		AttemptOutcome last = LAST_ATTEMPT.get();
		String reason = "only " + last.granted() + " of " + this.template.getNodeCount() + " RedLock nodes granted it, "
				+ this.template.getQuorum() + " needed";
		Throwable failure = last.failure();
		if (last.unanswered() > 0) {
			// Unreachable nodes are no contention: say so, with what the last one failed
			// with (a TLS handshake a bundle's CA did not trust fails every call alike).
			reason += "; " + last.unanswered() + " of them did not answer within the node timeout of "
					+ this.template.redlock().nodeTimeout().toMillis() + " ms"
					+ ((failure != null) ? " (" + NestedExceptionUtils.getMostSpecificCause(failure) + ")" : "")
					+ ". Check that the nodes of redislock.redlock.nodes are up and reachable"
					+ ((failure != null && handshakeFailed(failure))
							? "; the TLS handshake failed: redislock.redlock.ssl-bundle must name a bundle"
									+ " that trusts the nodes' certificates"
							: "");
		}
		return new LockAcquisitionException(this.name, waitTime, reason, failure);
	}

	private static boolean handshakeFailed(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof javax.net.ssl.SSLException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * What an attempt got: how many nodes granted it, how many failed or did not answer
	 * in time, and the failure of the last node that failed.
	 */
	private record AttemptOutcome(long granted, int unanswered, @Nullable Throwable failure) {

		static AttemptOutcome of(long granted, List<CompletableFuture<Long>> attempts) {
			int unanswered = 0;
			Throwable failure = null;
			for (CompletableFuture<Long> attempt : attempts) {
				if (!attempt.isDone()) {
					unanswered++;
				}
				else if (attempt.isCompletedExceptionally()) {
					unanswered++;
					try {
						attempt.join();
					}
					catch (CompletionException | CancellationException ex) {
						failure = (ex.getCause() != null) ? ex.getCause() : ex;
					}
				}
			}
			return new AttemptOutcome(granted, unanswered, failure);
		}

	}

	/**
	 * Release the hold on every node, owner-checked.
	 * @return on how many nodes it was still ours
	 */
	long releaseOnNodes(LockHold hold) {
		// The nodes' clocks differ, so a hold-at-least is sent as what remains of it by
		// this process's clock, counted from when the attempt's answers were in (see
		// boundsFromAnswer): each node keeps the lock at least that long from now.
		long keep = Math.max(0,
				hold.holdAtLeastMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - hold.acquiredNanos()));
		List<@Nullable Long> results = this.template
			.onAllNodes((node) -> node.release(this.key, hold.owner(), 0, "", keep));
		return results.stream().filter((result) -> result != null && result == 1).count();
	}

	/**
	 * The hold's bounds, its hold-at-least lengthened by the attempt's duration: the hold
	 * counts from when the attempt was sent, the nodes granted it up to that much later.
	 */
	private HoldBounds boundsFromAnswer(long attemptMillis) {
		return (this.bounds.holdAtLeastMillis() > 0)
				? this.bounds.withHoldAtLeast(this.bounds.holdAtLeastMillis() + attemptMillis) : this.bounds;
	}

	@Override
	void releaseLast(LockHold hold) {
		this.template.losses()
			.observer()
			.released(hold.metricName(), hold.kind(), Duration.ofNanos(System.nanoTime() - hold.acquiredNanos()));
		long released = releaseOnNodes(hold);
		if (released < this.template.getQuorum() || !hold.isHeld()) {
			this.template.losses()
				.releasedLost(hold, "only " + released + " of " + this.template.getNodeCount()
						+ " RedLock nodes still had it when released" + (hold.isHeld() ? "" : ", after its validity"));
		}
	}

	/**
	 * Return whether a majority of the nodes has the lock.
	 */
	@Override
	public boolean isLocked() {
		return this.template.onAllNodes((node) -> node.exists(this.key))
			.stream()
			.filter(Boolean.TRUE::equals)
			.count() >= this.template.getQuorum();
	}

	/**
	 * Return the lease a majority of the nodes still has: the quorum-th longest.
	 */
	@Override
	public Duration remainingLease() {
		List<Duration> leases = this.template.onAllNodes((node) -> node.remainingLease(this.key))
			.stream()
			.filter((lease) -> lease != null && !lease.isZero())
			.sorted((a, b) -> b.compareTo(a))
			.toList();
		int quorum = this.template.getQuorum();
		return (leases.size() >= quorum) ? leases.get(quorum - 1) : Duration.ZERO;
	}

	/**
	 * Return the holder found on the first node that has one (with that node's instance
	 * record).
	 */
	@Override
	public Optional<LockHolder> holder() {
		return this.template.onAllNodes((node) -> node.holder(this.key))
			.stream()
			.filter((holder) -> holder != null && holder.isPresent())
			.findFirst()
			.orElse(Optional.empty());
	}

	@Override
	public boolean forceUnlock() {
		return this.template.onAllNodes((node) -> node.forceUnlock(this.key, this.key, ""))
			.stream()
			.anyMatch(Boolean.TRUE::equals);
	}

}
