package io.github.redislock.test.support;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.admin.RedisLockAdmin.QueueDetails;
import io.github.redislock.admin.RedisLockAdmin.QueueSummary;
import io.github.redislock.admin.TaskPreview;
import io.github.redislock.internal.aop.QueuedTaskInterceptor;
import io.github.redislock.internal.queue.QueueWorkers;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.queue.TaskQueue;
import io.github.redislock.support.CurrentLock;
import io.github.redislock.support.CurrentLocks;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * Waits for the application's task queues to be drained, and runs queued tasks on the
 * test's thread, with the locks on. A bean in every Spring test context of a
 * {@link WithRedis} test class; elsewhere, built on the application's context.
 * <p>
 * A queue is <em>drained</em> when it holds no task that is due, delayed (a retry waiting
 * for its backoff included) or being run, on any instance; dead letters do not count (see
 * {@link #assertNoDeadLetters(String)}). Only the queues that a {@code @QueuedTask}
 * method of the application handles can be awaited or run.
 * <p>
 * To run tasks only when the test says so, set {@code redislock.queue.workers=0} (no
 * worker threads take tasks) and call {@link #runQueuedTasks(String)}: each due task runs
 * on the calling thread as a worker would run it (the method body through its proxy, so
 * its {@code @DistributedLock} is taken; retries and dead letters as configured).
 * <p>
 * Neither waits nor runs inside a transaction (a {@code @Transactional} test) that holds
 * back {@code @QueuedTask} calls: such a call is enqueued when the transaction commits,
 * and a test's transaction rolls back, so the queue would look drained with nothing sent.
 *
 * @since 0.1.0
 */
public final class TaskQueueTestSupport {

	/** How many tasks one {@link #runQueuedTasks(String)} runs at most. */
	public static final int MAX_INLINE_RUNS = 10_000;

	private static final int LISTED = 10;

	private final ListableBeanFactory beans;

	/**
	 * Create the support for an application.
	 * @param beans the application's context (or bean factory)
	 */
	public TaskQueueTestSupport(ListableBeanFactory beans) {
		Assert.notNull(beans, "'beans' must not be null");
		this.beans = beans;
	}

	/**
	 * Wait until a queue is drained.
	 * @param queue the queue
	 * @param timeout how long to wait
	 * @throws AssertionError when it is not drained in time, naming the tasks left
	 */
	public void awaitDrained(String queue, Duration timeout) {
		Assert.hasText(queue, "'queue' must not be empty");
		checkTimeout(timeout);
		checkNoTransaction("awaitDrained");
		long deadline = System.nanoTime() + timeout.toNanos();
		QueueSummary summary = admin().queue(queue, 1, 1).summary();
		while (left(summary) > 0) {
			if (System.nanoTime() - deadline >= 0) {
				throw new AssertionError("Queue '" + queue + "' was not drained within " + timeout + ": "
						+ describe(admin().queue(queue, 1, LISTED)));
			}
			pause();
			summary = admin().queue(queue, 1, 1).summary();
		}
	}

	/**
	 * Wait until every queue of the application is drained. The queues are read one after
	 * the other; a task of one queue may enqueue into another that was read already, so
	 * they count as drained after two passes in a row found all of them empty.
	 * @param timeout how long to wait for all of them
	 * @throws AssertionError when one is not drained in time, naming the tasks left
	 */
	public void awaitAllDrained(Duration timeout) {
		checkTimeout(timeout);
		checkNoTransaction("awaitAllDrained");
		long deadline = System.nanoTime() + timeout.toNanos();
		int emptyPasses = 0;
		while (true) {
			List<QueueSummary> busy = admin().queues().stream().filter((summary) -> left(summary) > 0).toList();
			if (busy.isEmpty()) {
				emptyPasses++;
				if (emptyPasses == 2) {
					return;
				}
				continue;
			}
			emptyPasses = 0;
			if (System.nanoTime() - deadline >= 0) {
				throw new AssertionError("Queues not drained within " + timeout + ": " + busy.stream()
					.map((summary) -> "'" + summary.name() + "': " + describe(admin().queue(summary.name(), 1, LISTED)))
					.collect(Collectors.joining("; ")));
			}
			pause();
		}
	}

	/**
	 * Run the due tasks of a queue on the calling thread, one after the other, until none
	 * is due (tasks that the runs enqueue and that are due at once run too; delayed ones
	 * and retries waiting for their backoff do not).
	 * @param queue the queue
	 * @return how many tasks ran
	 * @throws IllegalStateException when no {@code @QueuedTask} method handles the queue,
	 * when more than {@value #MAX_INLINE_RUNS} tasks ran (a task that enqueues itself),
	 * when the calling thread is interrupted (no task is taken; the interrupt is kept),
	 * holds a lock (a task would re-enter it where a worker would wait: no task is taken)
	 * or runs in a transaction
	 */
	public int runQueuedTasks(String queue) {
		Assert.hasText(queue, "'queue' must not be empty");
		checkInlineRun();
		int runs = workers().runDueTasks(queue, MAX_INLINE_RUNS + 1);
		if (runs > MAX_INLINE_RUNS) {
			throw new IllegalStateException("Queue '" + queue + "' still had due tasks after " + MAX_INLINE_RUNS
					+ " runs; does a task enqueue another for the same queue each time it runs?");
		}
		return runs;
	}

	/**
	 * Run the due tasks of every queue of the application on the calling thread, until
	 * none is due anywhere.
	 * @return how many tasks ran
	 * @throws IllegalStateException when more than {@value #MAX_INLINE_RUNS} tasks ran in
	 * all (tasks that enqueue each other, on one queue or across queues), or, with no
	 * task taken, when the calling thread holds a lock or runs in a transaction
	 */
	public int runQueuedTasks() {
		checkInlineRun();
		int total = 0;
		int runs;
		do {
			runs = 0;
			for (String queue : workers().getQueueNames()) {
				runs += workers().runDueTasks(queue, MAX_INLINE_RUNS + 1 - total - runs);
				if (total + runs > MAX_INLINE_RUNS) {
					throw new IllegalStateException(
							"The queues still had due tasks after " + MAX_INLINE_RUNS + " runs, the last on queue '"
									+ queue + "'; do tasks enqueue each other each time" + " they run?");
				}
			}
			total += runs;
		}
		while (runs > 0);
		return total;
	}

	/**
	 * Assert that a queue has no dead letters.
	 * @param queue the queue
	 * @throws AssertionError naming the dead tasks and their errors when it has some
	 */
	public void assertNoDeadLetters(String queue) {
		Assert.hasText(queue, "'queue' must not be empty");
		QueueDetails details = admin().queue(queue, LISTED, 1);
		if (details.summary().dead() > 0) {
			throw new AssertionError("Queue '" + queue + "' has " + details.summary().dead() + " dead letter(s): "
					+ details.deadLetters()
						.stream()
						.map((dead) -> "'" + dead.id() + "' after " + dead.attempts() + " attempt(s): " + dead.error())
						.collect(Collectors.joining(", ")));
		}
	}

	private static long left(QueueSummary summary) {
		return summary.ready() + summary.delayed() + summary.inflight();
	}

	private String describe(QueueDetails details) {
		QueueSummary summary = details.summary();
		List<String> parts = new ArrayList<>();
		String queue = summary.name();
		List<String> ready = queue().top(queue, LISTED)
			.stream()
			.map(TaskEntry::id)
			.map((id) -> "'" + id + "'")
			.toList();
		parts.add(summary.ready() + " ready" + listed(ready, summary.ready()));
		Instant now = Instant.now();
		List<String> delayed = details.upcoming()
			.stream()
			.map((task) -> "'" + task.id() + "' due " + due(task, now))
			.toList();
		parts.add(summary.delayed() + " delayed" + listed(delayed, summary.delayed()));
		parts.add(summary.inflight() + " running");
		if (summary.dead() > 0) {
			parts.add(summary.dead() + " dead");
		}
		if (summary.paused()) {
			parts.add("the queue is paused");
		}
		return String.join(", ", parts);
	}

	private static String due(TaskPreview task, Instant now) {
		Duration in = Duration.between(now, Instant.ofEpochMilli(task.dueAt()));
		return in.isNegative() ? "now" : "in " + in.withNanos(in.toMillisPart() * 1_000_000);
	}

	private static String listed(List<String> items, long count) {
		if (items.isEmpty()) {
			return "";
		}
		return " [" + String.join(", ", items) + ((count > items.size()) ? ", ..." : "") + "]";
	}

	/**
	 * An inline run takes tasks on the calling thread: one that holds a lock would run a
	 * task under it (locks are re-entrant per thread) where a worker would wait for it.
	 */
	private static void checkInlineRun() {
		checkNoTransaction("runQueuedTasks");
		// A hold that is gone (its lease ran out) is not re-entered: a task taking its
		// lock takes it afresh, as a worker would.
		CurrentLock held = CurrentLocks.all().stream().filter(CurrentLock::isHeld).findFirst().orElse(null);
		if (held != null) {
			throw new IllegalStateException("runQueuedTasks runs tasks on the calling thread, which holds the lock '"
					+ held.lockName() + "': a task taking that lock would re-enter it here, where a worker would"
					+ " wait for it. Release the locks first, or let the workers run the tasks (awaitDrained with"
					+ " redislock.queue.workers above 0); no task was taken");
		}
	}

	/**
	 * A {@code @QueuedTask} call made in a transaction is enqueued when it commits: in a
	 * test's transaction (rolled back at its end) never, and the queues look drained.
	 * Refused only when the calling thread's transaction holds such a call back (tasks
	 * sent outside it, on other threads, are waited for).
	 */
	private static void checkNoTransaction(String method) {
		if (TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.getSynchronizations()
					.stream()
					.anyMatch(QueuedTaskInterceptor.EnqueueAfterCommit.class::isInstance)) {
			throw new IllegalStateException(method + " was called inside a transaction (a @Transactional test?)"
					+ " that holds back @QueuedTask calls: they are enqueued when it commits, and a test's"
					+ " transaction rolls back, so they would never be sent and the queues would look drained."
					+ " Run the test without"
					+ " one (@Transactional(propagation = Propagation.NOT_SUPPORTED) on the method), or commit"
					+ " first (TestTransaction.flagForCommit(); TestTransaction.end())");
		}
	}

	private static void checkTimeout(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isNegative(), () -> "'timeout' must not be negative, was " + timeout);
	}

	private static void pause() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for a queue to drain", ex);
		}
	}

	private RedisLockAdmin admin() {
		return bean(RedisLockAdmin.class);
	}

	private TaskQueue queue() {
		return bean(TaskQueue.class);
	}

	private QueueWorkers workers() {
		return bean(QueueWorkers.class);
	}

	private <T> T bean(Class<T> type) {
		return this.beans.getBeanProvider(type).getIfAvailable(() -> {
			throw new IllegalStateException("No " + type.getSimpleName() + " bean: the task queue needs the"
					+ " starter's auto-configuration with redislock.enabled=true (the default) and one"
					+ " RedisConnectionFactory");
		});
	}

}
