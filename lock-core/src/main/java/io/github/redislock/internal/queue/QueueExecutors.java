package io.github.redislock.internal.queue;

import java.util.function.Consumer;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.ConcurrencyThrottleSupport;

/**
 * Where the queue's threads come from: Spring's executors, first set up as the
 * application's own are (in a Boot application by its executor builders, so its
 * {@code TaskDecorator} and executor customizers apply to the workers), then sized and
 * named for the queue: virtual threads for the pollers and workers when
 * {@code spring.threads.virtual.enabled} is set, platform threads otherwise. Claim
 * renewals always run on a platform thread of their own per queue: a renewal must not
 * wait for a carrier thread that task code pins. Every thread is named after its queue.
 *
 * @since 0.1.0
 */
public final class QueueExecutors {

	private final Consumer<ThreadPoolTaskExecutor> pool;

	private final Consumer<SimpleAsyncTaskExecutor> simple;

	private final boolean virtualThreads;

	/**
	 * Create the queue's executors.
	 * @param pool sets a new platform thread pool up as the application's are (its task
	 * decorator, say); the pool's size, queue, thread names and daemon flag are then set
	 * by the queue
	 * @param simple sets a new thread-per-task executor up as the application's are; its
	 * threads' kind, names and concurrency are then set by the queue
	 * @param virtualThreads whether pollers and workers run on virtual threads
	 */
	public QueueExecutors(Consumer<ThreadPoolTaskExecutor> pool, Consumer<SimpleAsyncTaskExecutor> simple,
			boolean virtualThreads) {
		this.pool = pool;
		this.simple = simple;
		this.virtualThreads = virtualThreads;
	}

	/**
	 * Executors set up with Spring's defaults, platform threads.
	 * @return the executors
	 */
	public static QueueExecutors defaults() {
		return new QueueExecutors((executor) -> {
		}, (executor) -> {
		}, false);
	}

	/**
	 * Return whether pollers and workers run on virtual threads.
	 * @return whether they do
	 */
	public boolean isVirtualThreads() {
		return this.virtualThreads;
	}

	/**
	 * The executor of one queue's workers. The poller never hands it more tasks than the
	 * queue has workers, so it needs no bound of its own.
	 */
	Executor workers(String queue, int workers) {
		String prefix = "redislock-queue-" + queue + "-";
		if (this.virtualThreads) {
			SimpleAsyncTaskExecutor executor = simple(true, prefix);
			return new Executor(executor, executor::close);
		}
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		this.pool.accept(executor);
		executor.setCorePoolSize(workers);
		executor.setMaxPoolSize(workers);
		executor.setQueueCapacity(Integer.MAX_VALUE);
		executor.setAllowCoreThreadTimeOut(false);
		executor.setWaitForTasksToCompleteOnShutdown(false);
		executor.setThreadNamePrefix(prefix);
		executor.setDaemon(true);
		executor.initialize();
		return new Executor(executor, executor::shutdown);
	}

	/**
	 * The thread-per-task executor of one queue's poller loop.
	 */
	Executor poller(String queue) {
		SimpleAsyncTaskExecutor executor = simple(this.virtualThreads, "redislock-queue-poller-" + queue + "-");
		executor.setDaemon(true);
		return new Executor(executor, executor::close);
	}

	private SimpleAsyncTaskExecutor simple(boolean virtual, String prefix) {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor();
		this.simple.accept(executor);
		executor.setVirtualThreads(virtual);
		executor.setConcurrencyLimit(ConcurrencyThrottleSupport.UNBOUNDED_CONCURRENCY);
		executor.setThreadNamePrefix(prefix);
		return executor;
	}

	/**
	 * The scheduler of one queue's claim renewals: one platform thread.
	 */
	ThreadPoolTaskScheduler renewer(String queue) {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setPoolSize(1);
		scheduler.setThreadNamePrefix("redislock-queue-renewer-" + queue + "-");
		scheduler.setDaemon(true);
		scheduler.initialize();
		return scheduler;
	}

	/**
	 * An executor and how to close it.
	 */
	record Executor(TaskExecutor executor, Runnable close) {
	}

}
