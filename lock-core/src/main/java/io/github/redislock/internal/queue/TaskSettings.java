package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One queue's own settings from its {@code @QueuedTask} method; each one that is
 * {@code null} is taken from {@code redislock.queue.*}.
 *
 * @param maxAttempts runs before a failing task goes to the dead letters
 * @param backoff pause before the first retry
 * @param noRetryFor failures (subclasses included) that send a task to the dead letters
 * at once
 * @param visibilityTimeout how long a claimed task stays invisible without a renewal
 * @param workers concurrent runs of the queue's tasks on this instance
 * @param version the version of the method, recorded with each task it enqueues
 * @since 0.1.0
 */
public record TaskSettings(@Nullable Integer maxAttempts, @Nullable Duration backoff,
		List<Class<? extends Throwable>> noRetryFor, @Nullable Duration visibilityTimeout, @Nullable Integer workers,
		int version) {

	/**
	 * Settings that take everything from {@code redislock.queue.*}, of version 1.
	 */
	public static final TaskSettings DEFAULTS = new TaskSettings(null, null, List.of(), null, null, 1);

	public TaskSettings {
		noRetryFor = List.copyOf(noRetryFor);
	}

	/**
	 * Return the instance's queue settings with these applied.
	 * @param base the settings from {@code redislock.queue.*}
	 * @return the settings of this queue
	 */
	QueueSettings applyTo(QueueSettings base) {
		return new QueueSettings((this.workers != null) ? this.workers : base.workers(), base.pollInterval(),
				base.batchSize(), (this.visibilityTimeout != null) ? this.visibilityTimeout : base.visibilityTimeout(),
				(this.maxAttempts != null) ? this.maxAttempts : base.maxAttempts(),
				(this.backoff != null) ? this.backoff : base.backoffInitial(), base.backoffMultiplier(),
				(this.backoff != null && this.backoff.compareTo(base.backoffMax()) > 0) ? this.backoff
						: base.backoffMax(),
				base.shutdownTimeout(), base.deadLetterMaxSize(), base.deadLetterMaxAge());
	}

	/**
	 * Return whether a failure is one that is never retried.
	 * @param failure what the run threw
	 * @return whether the task goes to the dead letters at once
	 */
	boolean isNoRetry(Throwable failure) {
		for (Class<? extends Throwable> type : this.noRetryFor) {
			if (type.isInstance(failure)) {
				return true;
			}
		}
		return false;
	}

}
