package io.github.redislock.internal.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;

import io.github.redislock.internal.OutageLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Renews the leases of all watchdog-held locks of this instance, every third of the
 * lease, from one thread.
 * <p>
 * One tick renews every held lock with one script call per batch of up to
 * {@value #BATCH_SIZE} locks (per Cluster slot on a Cluster): no timer and no round trip
 * per lock. The batches of a tick are all sent at once without waiting for their answers
 * (each answer is waited for at most a lease, as long as it can matter): a node that
 * hangs (or a connection that lost its answers) holds up only the renewals of its own
 * slots, never those of the healthy nodes, and the next tick sends its renewals whether
 * or not the last ones were answered. A renewal that finds the lock gone or taken, or a
 * hold whose local deadline passes before a renewal reached Redis, marks the hold lost. A
 * hold that reached its maximum hold time is no longer renewed: it runs out with its
 * current lease. Deadlines are checked on a thread of their own, so a renewal stuck on an
 * unresponsive connection cannot delay the loss of a hold past its deadline.
 */
final class WatchdogRenewer implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(WatchdogRenewer.class);

	/**
	 * Locks renewed by one script call: 100,000 held locks take 100 calls per tick, each
	 * about 1.5 ms of Redis time (measured on 2 cores with Redis 7.0).
	 */
	static final int BATCH_SIZE = 1000;

	private final HoldRegistry holds;

	private final LockCommands commands;

	private final long leaseMillis;

	private final BiConsumer<LockHold, String> onLost;

	private final IntConsumer onRenewed;

	private final Runnable eachTick;

	private final ThreadPoolTaskScheduler scheduler;

	/** Whether Redis is a Cluster: asked on first use. */
	private volatile @Nullable Boolean cluster;

	/** Failed renewals: one WARN when an outage starts, one INFO when it ends. */
	private final OutageLog outages;

	/** The key of the renewals' failures in the {@link OutageLog}. */
	private static final String OUTAGE_KEY = "renewals";

	/** The key of the outage probe's failures in the {@link OutageLog}. */
	private static final String PROBE_KEY = "commands";

	/** How often, and how long, the outage probe asks Redis while an outage lasts. */
	private static final Duration PROBE_PERIOD = Duration.ofSeconds(1);

	/** Whether a probe is under way. */
	private final AtomicBoolean probing = new AtomicBoolean();

	/**
	 * How long a renewal's answer is waited for: as long as it can still matter (a lease:
	 * the hold's local deadline counts from when the renewal was sent), so a slow answer
	 * still counts; the next tick does not wait for it.
	 */
	private final Duration answerDeadline;

	WatchdogRenewer(HoldRegistry holds, LockCommands commands, long leaseMillis, BiConsumer<LockHold, String> onLost,
			IntConsumer onRenewed, Runnable eachTick, OutageLog outages) {
		this.outages = outages;
		this.eachTick = eachTick;
		this.onRenewed = onRenewed;
		this.holds = holds;
		this.commands = commands;
		this.leaseMillis = leaseMillis;
		this.onLost = onLost;
		this.scheduler = EngineThreads.scheduler("redislock-watchdog", 2);
		Duration period = Duration.ofMillis(Math.max(1, leaseMillis / 3));
		this.answerDeadline = Duration.ofMillis(Math.max(1, leaseMillis));
		this.scheduler.scheduleAtFixedRate(this::renewAll, Instant.now().plus(period), period);
		Duration checkPeriod = Duration.ofMillis(Math.max(1, Math.min(period.toMillis(), MAX_CHECK_PERIOD_MILLIS)));
		this.scheduler.scheduleAtFixedRate(this::checkDeadlines, Instant.now().plus(checkPeriod), checkPeriod);
		this.scheduler.scheduleAtFixedRate(this::probe, Instant.now().plus(PROBE_PERIOD), PROBE_PERIOD);
	}

	/**
	 * While an outage is under way (renewals or the release channel failed), PING Redis
	 * every second on the connection the locks use: the outage ends once commands get
	 * through again, not merely the release channel's connection, and renewals that
	 * failed end with it when no hold is left to renew.
	 */
	private void probe() {
		if (!this.outages.isFailing() || !this.probing.compareAndSet(false, true)) {
			return;
		}
		long sent = System.nanoTime();
		CompletableFuture<Void> ping;
		try {
			ping = this.commands.pingAsync(PROBE_PERIOD);
		}
		catch (RuntimeException ex) {
			ping = CompletableFuture.failedFuture(ex);
		}
		ping.whenCompleteAsync((pong, ex) -> {
			this.probing.set(false);
			if (ex != null) {
				Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
				this.outages.failed(PROBE_KEY, "Redis did not answer a PING on the locks' connection", cause, sent);
				return;
			}
			if (this.holds.watchdogHolds().isEmpty()) {
				// Nothing left to renew: the renewals' failures are over.
				this.outages.succeeded(OUTAGE_KEY);
			}
			this.outages.succeeded(PROBE_KEY);
		}, this.scheduler);
	}

	/** Loss by deadline is noticed at most this long after the deadline passed. */
	private static final long MAX_CHECK_PERIOD_MILLIS = 1000;

	private void renewAll() {
		try {
			this.eachTick.run();
			List<LockHold> due = this.holds.watchdogHolds();
			if (!due.isEmpty()) {
				for (List<LockHold> batch : batches(due)) {
					renew(batch);
				}
			}

		}
		catch (Throwable ex) {
			logger.error("Lock watchdog renewal failed", ex);
		}
	}

	private void checkDeadlines() {
		try {
			for (LockHold hold : this.holds.all()) {
				if (hold.deadlinePassed()) {
					this.onLost.accept(hold, hold.expiryReason());
				}
			}
		}
		catch (Throwable ex) {
			logger.error("Lock deadline check failed", ex);
		}
	}

	private void renew(List<LockHold> batch) {
		List<String> keys = new ArrayList<>(batch.size());
		List<String> owners = new ArrayList<>(batch.size());
		for (LockHold hold : batch) {
			keys.add(hold.key());
			owners.add(hold.owner());
		}
		long sent = System.nanoTime();
		CompletableFuture<boolean[]> renewal;
		try {
			renewal = this.commands.renewAsync(keys, owners, this.leaseMillis, this.answerDeadline);
		}
		catch (RuntimeException ex) {
			renewal = CompletableFuture.failedFuture(ex);
		}
		// The answers are handled on the watchdog's threads, never on Lettuce's I/O
		// thread.
		renewal.whenCompleteAsync((renewed, ex) -> {
			if (ex != null) {
				Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
				this.outages.failed(OUTAGE_KEY,
						"could not renew " + batch.size() + " lock(s) (retrying on the next tick)", cause, sent);
				return;
			}
			this.outages.succeeded(OUTAGE_KEY);
			renewed(batch, renewed, sent);
		}, this.scheduler);
	}

	private void renewed(List<LockHold> batch, boolean[] renewed, long sent) {
		long leaseNanos = TimeUnit.MILLISECONDS.toNanos(this.leaseMillis);
		int count = 0;
		for (int i = 0; i < renewed.length; i++) {
			LockHold hold = batch.get(i);
			if (!hold.watchdog()) {
				// Extended since this renewal was sent: its lease is the holder's now,
				// and
				// an answer about the renewal (which the extension may have overtaken or
				// made skip it) says nothing about it.
				continue;
			}
			if (renewed[i]) {
				hold.renewed(sent, leaseNanos);
				count++;
			}
			else if (this.holds.get(hold.key(), hold.threadId()) == hold) {
				// Still registered, so not simply released while we renewed.
				this.onLost.accept(hold, "a renewal found it expired, deleted or held by another owner");
			}
		}
		if (count > 0) {
			this.onRenewed.accept(count);
		}
	}

	private List<List<LockHold>> batches(List<LockHold> holds) {
		Map<Integer, List<LockHold>> bySlot = new LinkedHashMap<>();
		boolean cluster = isCluster();
		for (LockHold hold : holds) {
			int slot = cluster ? ClusterSlotHashUtil.calculateSlot(hold.key()) : 0;
			bySlot.computeIfAbsent(slot, (key) -> new ArrayList<>()).add(hold);
		}
		List<List<LockHold>> result = new ArrayList<>();
		for (List<LockHold> slotHolds : bySlot.values()) {
			for (int i = 0; i < slotHolds.size(); i += BATCH_SIZE) {
				result.add(slotHolds.subList(i, Math.min(slotHolds.size(), i + BATCH_SIZE)));
			}
		}
		return result;
	}

	private boolean isCluster() {
		Boolean cluster = this.cluster;
		if (cluster == null) {
			cluster = this.commands.isCluster();
			this.cluster = cluster;
		}
		return cluster;
	}

	ThreadPoolTaskScheduler scheduler() {
		return this.scheduler;
	}

	@Override
	public void close() {
		this.scheduler.shutdown();
	}

}
