package io.github.redislock.internal.queue;

import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Where the queue's threads come from: Spring Boot's executor builders (so the
 * application's {@code TaskDecorator} and executor customizers apply to the workers),
 * virtual threads for the pollers and workers when {@code spring.threads.virtual.enabled}
 * is set, platform threads otherwise. Claim renewals always run on a platform thread of
 * their own per queue: a renewal must not wait for a carrier thread that task code pins.
 * Every thread is named after its queue.
 *
 * @since 0.1.0
 */
public final class QueueExecutors {

	private final ThreadPoolTaskExecutorBuilder pool;

	private final SimpleAsyncTaskExecutorBuilder simple;

	private final boolean virtualThreads;

	/**
	 * Create the queue's executors from the application's builders.
	 * @param pool the builder of platform thread pools
	 * @param simple the builder of thread-per-task executors
	 * @param virtualThreads whether pollers and workers run on virtual threads
	 */
	public QueueExecutors(ThreadPoolTaskExecutorBuilder pool, SimpleAsyncTaskExecutorBuilder simple,
			boolean virtualThreads) {
		this.pool = pool;
		this.simple = simple;
		this.virtualThreads = virtualThreads;
	}

	/**
	 * Executors from default builders, platform threads.
	 * @return the executors
	 */
	public static QueueExecutors defaults() {
		return new QueueExecutors(new ThreadPoolTaskExecutorBuilder(), new SimpleAsyncTaskExecutorBuilder(), false);
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
			SimpleAsyncTaskExecutor executor = this.simple.virtualThreads(true)
				.concurrencyLimit(null)
				.threadNamePrefix(prefix)
				.build();
			return new Executor(executor, executor::close);
		}
		ThreadPoolTaskExecutor executor = this.pool.corePoolSize(workers)
			.maxPoolSize(workers)
			.queueCapacity(Integer.MAX_VALUE)
			.allowCoreThreadTimeOut(false)
			.awaitTermination(false)
			.threadNamePrefix(prefix)
			.build();
		executor.setDaemon(true);
		executor.initialize();
		return new Executor(executor, executor::shutdown);
	}

	/**
	 * The thread-per-task executor of one queue's poller loop.
	 */
	Executor poller(String queue) {
		SimpleAsyncTaskExecutor executor = this.simple.virtualThreads(this.virtualThreads)
			.concurrencyLimit(null)
			.threadNamePrefix("redislock-queue-poller-" + queue + "-")
			.build();
		executor.setDaemon(true);
		return new Executor(executor, executor::close);
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
