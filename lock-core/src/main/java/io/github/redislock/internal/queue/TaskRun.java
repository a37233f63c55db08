package io.github.redislock.internal.queue;

import io.github.redislock.support.RunningTask;
import org.jspecify.annotations.Nullable;

/**
 * One run of a claimed task on this instance: the claim, and whether it is still known to
 * be held.
 */
final class TaskRun implements RunningTask {

	private final RedisTaskQueue.ClaimedTask task;

	private volatile long confirmedNanos;

	/** Set once, under this run's monitor; read without it (volatile). */
	private volatile @Nullable String lostReason;

	private volatile @Nullable Thread worker;

	private volatile boolean settling;

	/**
	 * @param task the claimed task
	 * @param claimSentNanos when the claim was sent: the visibility timeout counts from
	 * then
	 */
	TaskRun(RedisTaskQueue.ClaimedTask task, long claimSentNanos) {
		this.task = task;
		this.confirmedNanos = claimSentNanos;
	}

	RedisTaskQueue.ClaimedTask task() {
		return this.task;
	}

	@Override
	public String queue() {
		return this.task.queue();
	}

	@Override
	public String taskId() {
		return this.task.id();
	}

	@Override
	public int attempt() {
		return this.task.attempt();
	}

	/**
	 * A renewal sent at {@code sentNanos} found the claim still held.
	 */
	void confirmed(long sentNanos) {
		this.confirmedNanos = sentNanos;
	}

	long confirmedNanos() {
		return this.confirmedNanos;
	}

	/**
	 * The worker thread starts running this task ({@code null}: it is done).
	 */
	void startedOn(@Nullable Thread thread) {
		this.worker = thread;
	}

	/**
	 * Interrupt the worker thread running this task, if one is.
	 */
	void interrupt() {
		Thread thread = this.worker;
		if (thread != null) {
			thread.interrupt();
		}
	}

	/**
	 * Its outcome is on its way to Redis: a renewal that finds the claim gone from now on
	 * may have come after that outcome was recorded, so it proves no loss (the outcome's
	 * own answer tells).
	 */
	void settling() {
		this.settling = true;
	}

	boolean isSettling() {
		return this.settling;
	}

	boolean isClaimHeld() {
		return this.lostReason == null;
	}

	@Override
	public @Nullable String lostReason() {
		return this.lostReason;
	}

	/**
	 * Mark the claim lost.
	 * @return whether it was held until now
	 */
	synchronized boolean lost(String reason) {
		if (this.lostReason != null) {
			return false;
		}
		this.lostReason = reason;
		return true;
	}

}
