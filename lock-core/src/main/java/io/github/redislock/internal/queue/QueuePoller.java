package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

import io.github.redislock.internal.OutageLog;
import io.github.redislock.support.Printable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Takes the due tasks of one queue, in batches, while this instance has free workers for
 * it, and runs them on its worker threads. Renews the claims of its running tasks on a
 * thread of its own, so a slow call for one queue never delays another queue's renewals,
 * and marks a run's claim lost when a renewal finds it taken or none reached Redis within
 * the visibility timeout.
 * <p>
 * This instance never runs one id twice at once: its claims name the ids it still runs,
 * which it is not given again, and the claims it still runs and holds, which its own
 * claims do not recover when their deadline passed (a renewal that comes late, after a
 * pause of this instance, still holds a claim nobody took). Every run is renewed by its
 * own claim, so a run whose claim another instance took always learns it.
 */
final class QueuePoller {

	private static final Log logger = LogFactory.getLog(QueuePoller.class);

	private final String queueName;

	private final RedisTaskQueue queue;

	private final QueueSettings settings;

	private final String claimer;

	private final Consumer<TaskRun> handler;

	private final HandOffListener handOffs;

	private final FailureListener failures;

	private final Semaphore freeWorkers;

	private final Semaphore wakeUp = new Semaphore(0);

	/**
	 * The longest idle pause of a queue of an instance with many queues (unless the poll
	 * interval is longer): up to it, an idle instance costs one look per poll interval
	 * whatever its number of queues (30 queues at the default 2 s). How late a
	 * notification lost while the subscription hears (a message the Cluster bus dropped)
	 * is made up for, and how long after its visibility timeout a dead worker's task
	 * waits for an instance that did not look at its queue meanwhile. A subscription that
	 * stops hearing is found by its probe within {@code QueueWorkers.PROBE_MILLIS}.
	 */
	static final long MAX_IDLE_PAUSE_MILLIS = 60_000;

	/** How many queues this instance polls (see {@link #idleMillis()}). */
	private final IntSupplier queuesPolled;

	/** The settings of the last claim (see {@link #claimSettings}); only the poller's. */
	private QueueSettings claimSettings;

	private final QueueExecutors.Executor workers;

	private final QueueExecutors.Executor pollerExecutor;

	private final ThreadPoolTaskScheduler renewer;

	/**
	 * Running tasks by claim (handle and token; the tasks of one claim call share a
	 * token): each run is renewed, and learns of the loss of its claim, on its own.
	 */
	private final Map<Claim, TaskRun> running = new ConcurrentHashMap<>();

	/** Signalled when a run ends, for {@link #awaitRunning(long)}. */
	private final Object runEnded = new Object();

	private final CountDownLatch pollerDone = new CountDownLatch(1);

	private volatile boolean taking = true;

	/** Told after each claim that reached Redis. */
	private final Runnable reached;

	/** Told of failed and successful calls: one WARN per outage, not one per call. */
	private final OutageLog outages;

	QueuePoller(String queueName, RedisTaskQueue queue, QueueSettings settings, String claimer,
			Consumer<TaskRun> handler, HandOffListener handOffs, QueueExecutors executors, FailureListener failures,
			Runnable reached, OutageLog outages, IntSupplier queuesPolled) {
		this.queuesPolled = queuesPolled;
		this.claimSettings = settings;
		this.failures = failures;
		this.reached = reached;
		this.outages = outages;
		this.handOffs = handOffs;
		this.queueName = queueName;
		this.queue = queue;
		this.settings = settings;
		this.claimer = claimer;
		this.handler = handler;
		this.freeWorkers = new Semaphore(settings.workers());
		this.workers = executors.workers(queueName, settings.workers());
		this.pollerExecutor = executors.poller(queueName);
		this.renewer = executors.renewer(queueName);
	}

	String queueName() {
		return this.queueName;
	}

	void start() {
		this.pollerExecutor.executor().execute(() -> {
			try {
				poll();
			}
			finally {
				this.pollerDone.countDown();
			}
		});
		Duration period = Duration.ofMillis(Math.max(10, this.settings.visibilityTimeout().toMillis() / 3));
		this.renewer.scheduleWithFixedDelay(this::renew, java.time.Instant.now().plus(period), period);
	}

	/**
	 * A task may be due: look at once.
	 */
	void wake() {
		if (this.wakeUp.availablePermits() == 0) {
			this.wakeUp.release();
		}
	}

	List<TaskRun> runningTasks() {
		return new ArrayList<>(this.running.values());
	}

	private void poll() {
		while (this.taking) {
			int free = 0;
			long sent = System.nanoTime();
			try {
				this.freeWorkers.acquire();
				free = 1 + this.freeWorkers.drainPermits();
				if (!this.taking) {
					this.freeWorkers.release(free);
					return;
				}
				sent = System.nanoTime();
				List<RedisTaskQueue.ClaimedTask> held = new ArrayList<>();
				Set<String> runningIds = new HashSet<>();
				for (TaskRun run : this.running.values()) {
					runningIds.add(run.task().id());
					if (run.isClaimHeld()) {
						held.add(run.task());
					}
				}
				long idleMillis = idleMillis();
				RedisTaskQueue.Claimed claimed = this.queue.claim(this.queueName,
						Math.min(free, this.settings.batchSize()), this.claimer, claimSettings(idleMillis), held,
						runningIds);
				this.freeWorkers.release(free - claimed.tasks().size());
				free = 0;
				this.outages.succeeded("claim:" + this.queueName);
				deadLettered(claimed.deadLettered());
				for (RedisTaskQueue.ClaimedTask task : claimed.tasks()) {
					handOff(new TaskRun(task, sent));
				}
				// After the hand-off: what is told must not hold claimed tasks up.
				this.reached.run();
				if (claimed.tasks().isEmpty()) {
					long pause = idleMillis;
					if (claimed.nextDueMillis() >= 0) {
						pause = Math.min(pause, claimed.nextDueMillis());
					}
					this.wakeUp.tryAcquire(Math.max(1, pause), TimeUnit.MILLISECONDS);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				this.freeWorkers.release(free);
				if (this.taking) {
					this.outages.failed("claim:" + this.queueName, "could not take tasks of queue '" + this.queueName
							+ "' (trying again every " + this.settings.pollInterval() + ")", ex, sent);
					sleep(this.settings.pollInterval().toMillis());
				}
			}
		}
	}

	private void deadLettered(List<String> ids) {
		String reason = "it was claimed " + this.settings.maxAttempts()
				+ " times and its worker never reported back (killed, halted, or cut off from Redis longer than the"
				+ " visibility timeout)";
		for (String id : ids) {
			logger.error("Task '" + Printable.of(id) + "' of queue '" + this.queueName + "' moved to the dead letters: "
					+ reason);
			this.queue.observer().processed(this.queueName, "dead");
			this.failures.failed(this.queueName, id, this.settings.maxAttempts(), new IllegalStateException(reason),
					true);
		}
	}

	/**
	 * Hand a claimed task to a worker thread. When that fails (the application's
	 * {@code TaskDecorator} or the executor throws), the task never ran: its worker slot
	 * comes back, its claim is no longer renewed, and the listener settles it as a failed
	 * attempt, so it runs again after its backoff or ends in the dead letters.
	 */
	private void handOff(TaskRun run) {
		this.running.put(Claim.of(run), run);
		try {
			this.workers.executor().execute(() -> runTask(run));
		}
		catch (RuntimeException ex) {
			ended(run);
			this.handOffs.failed(run, new IllegalStateException("Could not hand task '" + Printable.of(run.task().id())
					+ "' of queue '" + this.queueName + "' to a worker thread: " + ex, ex));
		}
	}

	private void runTask(TaskRun run) {
		run.startedOn(Thread.currentThread());
		try {
			this.handler.accept(run);
		}
		finally {
			run.startedOn(null);
			ended(run);
		}
	}

	/**
	 * A run ended (or never started): its claim is no longer renewed, and its worker is
	 * free.
	 */
	private void ended(TaskRun run) {
		this.running.remove(Claim.of(run), run);
		this.freeWorkers.release();
		// The poller may have passed over a due task of this run's id (one id never runs
		// twice at once), which may go now: it looks again (at once if it idles, else
		// after its next empty look, which then does not wait).
		wake();
		synchronized (this.runEnded) {
			this.runEnded.notifyAll();
		}
	}

	/**
	 * Renew the claims of the running tasks in one call; a claim that is no longer ours,
	 * or that no renewal confirmed within the visibility timeout, is lost.
	 */
	void renew() {
		List<TaskRun> runs = new ArrayList<>();
		for (TaskRun run : this.running.values()) {
			if (run.isClaimHeld() && !run.isSettling()) {
				runs.add(run);
			}
		}
		if (runs.isEmpty()) {
			// Nothing (left) to renew: no renewal fails.
			this.outages.succeeded("renew:" + this.queueName);
			return;
		}
		long sent = System.nanoTime();
		try {
			boolean[] held = this.queue.settle(this.queueName, "extend",
					Long.toString(this.settings.visibilityTimeout().toMillis()), this.settings.deadLetterMaxSize(),
					this.settings.deadLetterMaxAge(), runs.stream().map(TaskRun::task).toList());
			this.outages.succeeded("renew:" + this.queueName);
			for (int i = 0; i < runs.size(); i++) {
				if (held[i]) {
					runs.get(i).confirmed(sent);
				}
				else if (!runs.get(i).isSettling()) {
					// (A run whose outcome went meanwhile may have been settled by it.)
					lost(runs.get(i),
							"another worker claimed it after its visibility timeout passed without a renewal");
				}
			}
		}
		catch (RuntimeException ex) {
			this.outages.failed("renew:" + this.queueName, "could not renew the claims of " + runs.size()
					+ " running task(s) of queue '" + this.queueName + "'", ex, sent);
		}
		long visibility = this.settings.visibilityTimeout().toNanos();
		for (TaskRun run : runs) {
			if (run.isClaimHeld() && !run.isSettling() && System.nanoTime() - run.confirmedNanos() > visibility) {
				lost(run, "no renewal reached Redis within the visibility timeout");
			}
		}
	}

	private void lost(TaskRun run, String reason) {
		claimLost(this.queue, run, reason);
	}

	/**
	 * Mark a run's claim lost; the first time, log one WARN and count it.
	 */
	static void claimLost(RedisTaskQueue queue, TaskRun run, String reason) {
		if (run.lost(reason)) {
			logger.warn("Task '" + Printable.of(run.task().id()) + "' of queue '" + Printable.of(run.task().queue())
					+ "' lost its claim (" + reason
					+ "): another worker may run it now, and this run's outcome will not be recorded;"
					+ " TaskContext.isClaimHeld() is false from now on");
			queue.observer().claimLost(run.task().queue());
		}
	}

	/**
	 * Return how long this queue's poller waits, when it found nothing, before it looks
	 * again unless woken (by an enqueue, a settled run, a resumed queue, the end of one
	 * of its runs, or the subscription coming back) or a waiting task falls due sooner,
	 * or a claim in flight expires: the poll interval times the number of queues this
	 * instance polls, at most {@link #MAX_IDLE_PAUSE_MILLIS} (or the poll interval, when
	 * longer), so that an idle instance sends one look per poll interval whatever its
	 * number of queues up to that bound (the idle cost is flat), and a lost notification
	 * is made up for within it. An instance with one queue looks every poll interval.
	 */
	long idleMillis() {
		long interval = this.settings.pollInterval().toMillis();
		return Math.max(interval,
				Math.min(interval * Math.max(1, this.queuesPolled.getAsInt()), MAX_IDLE_PAUSE_MILLIS));
	}

	/**
	 * The settings a claim is sent with: this queue's, with the idle pause in place of
	 * the poll interval, which the claim script uses for how long the queue's idle mark
	 * lives (so that enqueues tell the idle poller until it looks again).
	 */
	private QueueSettings claimSettings(long idleMillis) {
		QueueSettings current = this.claimSettings;
		if (current.pollInterval().toMillis() != idleMillis) {
			current = this.settings.toBuilder().pollInterval(Duration.ofMillis(idleMillis)).build();
			this.claimSettings = current;
		}
		return current;
	}

	/**
	 * Stop taking tasks. The poller is woken rather than interrupted, so that a claim
	 * under way completes and its tasks are run.
	 */
	void stopTaking() {
		this.taking = false;
		wake();
		this.freeWorkers.release();
		try {
			this.pollerDone.await(this.settings.pollInterval().toMillis() + 5000, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.pollerExecutor.close().run();
	}

	/**
	 * Wait until the running tasks finish or the deadline passes.
	 * @return whether they all finished
	 */
	boolean awaitRunning(long deadlineNanos) {
		synchronized (this.runEnded) {
			while (!this.running.isEmpty()) {
				long left = deadlineNanos - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				try {
					TimeUnit.NANOSECONDS.timedWait(this.runEnded, left);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return true;
		}
	}

	/**
	 * Interrupt the running tasks.
	 */
	void interruptRunning() {
		for (TaskRun run : this.running.values()) {
			run.interrupt();
		}
	}

	/**
	 * Stop renewing claims: a task still running from now on keeps its claim only until
	 * its visibility timeout passes.
	 */
	void stopRenewing() {
		this.renewer.shutdown();
		this.workers.close().run();
	}

	/**
	 * One claim of a task: the key of its run.
	 */
	private record Claim(String handle, String token) {

		static Claim of(TaskRun run) {
			return new Claim(run.task().handle(), run.task().token());
		}

	}

	/**
	 * Told about claimed tasks that could not be handed to a worker thread.
	 */
	interface HandOffListener {

		/**
		 * Settle the claim of a task that never ran; called on the poller's thread.
		 * @param run the task's run, which never started
		 * @param failure why the hand-off failed
		 */
		void failed(TaskRun run, RuntimeException failure);

	}

	/**
	 * Told about failed runs, for {@code TaskFailedEvent}s.
	 */
	interface FailureListener {

		void failed(String queue, String id, int attempt, Throwable error, boolean deadLettered);

	}

	private void sleep(long millis) {
		try {
			this.wakeUp.tryAcquire(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
