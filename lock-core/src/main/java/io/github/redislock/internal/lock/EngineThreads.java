package io.github.redislock.internal.lock;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The lock engine's own threads, from Spring's executors: named, daemon, platform
 * threads. They time leases, renew them and hand lock-lost events over; none runs
 * application code but the {@code LockLostEvent} listeners (on their own thread, never on
 * a renewing one). They stay platform threads when {@code spring.threads.virtual.enabled}
 * is set: a renewal must not wait for a carrier thread that application code pins.
 *
 * @since 0.1.0
 */
public final class EngineThreads {

	private EngineThreads() {
	}

	/**
	 * A started scheduler of {@code size} threads named {@code prefix}-N.
	 */
	public static ThreadPoolTaskScheduler scheduler(String prefix, int size) {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setPoolSize(size);
		scheduler.setThreadNamePrefix(prefix + "-");
		scheduler.setDaemon(true);
		// Timers cancelled because what they timed came in time leave the queue at once,
		// rather than wait there for the whole timeout (a command timeout: 60 s).
		scheduler.setRemoveOnCancelPolicy(true);
		scheduler.initialize();
		return scheduler;
	}

	/**
	 * A started executor of one thread that runs its tasks in order; on shutdown, tasks
	 * already handed over still run.
	 */
	public static ThreadPoolTaskExecutor serial(String prefix) {
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		executor.setCorePoolSize(1);
		executor.setMaxPoolSize(1);
		executor.setThreadNamePrefix(prefix + "-");
		executor.setDaemon(true);
		executor.setWaitForTasksToCompleteOnShutdown(true);
		executor.initialize();
		return executor;
	}

	/**
	 * A started executor that runs every task at once, on an idle thread or a new one
	 * (idle threads end after a minute).
	 */
	public static ThreadPoolTaskExecutor unbounded(String prefix) {
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		executor.setCorePoolSize(0);
		executor.setMaxPoolSize(Integer.MAX_VALUE);
		executor.setQueueCapacity(0);
		executor.setKeepAliveSeconds(60);
		executor.setThreadNamePrefix(prefix + "-");
		executor.setDaemon(true);
		executor.initialize();
		return executor;
	}

}
