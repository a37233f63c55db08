package io.github.redislock.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Takes the due tasks of one queue, in batches, while this instance has free workers for
 * it, and runs them on its worker threads.
 */
final class QueuePoller {

	private static final Log logger = LogFactory.getLog(QueuePoller.class);

	private final String queueName;

	private final RedisTaskQueue queue;

	private final QueueSettings settings;

	private final String claimer;

	private final Consumer<RedisTaskQueue.ClaimedTask> handler;

	private final Semaphore freeWorkers;

	private final Semaphore wakeUp = new Semaphore(0);

	private final ExecutorService workers;

	private final Map<String, RedisTaskQueue.ClaimedTask> running = new ConcurrentHashMap<>();

	private final Thread thread;

	private volatile boolean taking = true;

	QueuePoller(String queueName, RedisTaskQueue queue, QueueSettings settings, String claimer,
			Consumer<RedisTaskQueue.ClaimedTask> handler) {
		this.queueName = queueName;
		this.queue = queue;
		this.settings = settings;
		this.claimer = claimer;
		this.handler = handler;
		this.freeWorkers = new Semaphore(settings.workers());
		AtomicInteger count = new AtomicInteger();
		this.workers = Executors.newFixedThreadPool(settings.workers(), (task) -> {
			Thread thread = new Thread(task, "redislock-queue-" + queueName + "-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.thread = new Thread(this::poll, "redislock-queue-poller-" + queueName);
		this.thread.setDaemon(true);
	}

	String queueName() {
		return this.queueName;
	}

	void start() {
		this.thread.start();
	}

	/**
	 * A task may be due: look at once.
	 */
	void wake() {
		if (this.wakeUp.availablePermits() == 0) {
			this.wakeUp.release();
		}
	}

	List<RedisTaskQueue.ClaimedTask> runningTasks() {
		return new ArrayList<>(this.running.values());
	}

	private void poll() {
		while (this.taking) {
			int free = 0;
			try {
				this.freeWorkers.acquire();
				free = 1 + this.freeWorkers.drainPermits();
				if (!this.taking) {
					this.freeWorkers.release(free);
					return;
				}
				RedisTaskQueue.Claimed claimed = this.queue.claim(this.queueName,
						Math.min(free, this.settings.batchSize()), this.settings.visibilityTimeout(), this.claimer);
				this.freeWorkers.release(free - claimed.tasks().size());
				free = 0;
				for (RedisTaskQueue.ClaimedTask task : claimed.tasks()) {
					this.running.put(task.id(), task);
					this.workers.execute(() -> runTask(task));
				}
				if (claimed.tasks().isEmpty()) {
					long pause = this.settings.pollInterval().toMillis();
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
					logger.warn("Could not take tasks of queue '" + this.queueName + "'; trying again in "
							+ this.settings.pollInterval() + ": " + ex);
					sleep(this.settings.pollInterval().toMillis());
				}
			}
		}
	}

	private void runTask(RedisTaskQueue.ClaimedTask task) {
		try {
			this.handler.accept(task);
		}
		finally {
			this.running.remove(task.id(), task);
			this.freeWorkers.release();
		}
	}

	/**
	 * Stop taking tasks. The poller is woken rather than interrupted, so that a claim
	 * under way completes and its tasks are run or handed back.
	 */
	void stopTaking() {
		this.taking = false;
		wake();
		this.freeWorkers.release();
		try {
			this.thread.join(this.settings.pollInterval().toMillis() + 5000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.workers.shutdown();
	}

	/**
	 * Wait until the running tasks finish or the deadline passes.
	 * @return the tasks still running
	 */
	List<RedisTaskQueue.ClaimedTask> awaitRunning(long deadlineNanos) {
		try {
			this.workers.awaitTermination(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return runningTasks();
	}

	void shutdownNow() {
		this.workers.shutdownNow();
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
