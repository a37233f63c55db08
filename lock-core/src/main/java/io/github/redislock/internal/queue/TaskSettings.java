package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One queue's own settings from its {@code @QueuedTask} method; each one that is
 * {@code null} is taken from {@code redislock.queue.*}. Made with {@link #builder()}.
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
	public static final TaskSettings DEFAULTS = builder().build();

	public TaskSettings {
		noRetryFor = List.copyOf(noRetryFor);
	}

	/**
	 * Return the instance's queue settings with these applied.
	 * @param base the settings from {@code redislock.queue.*}
	 * @return the settings of this queue
	 */
	QueueSettings applyTo(QueueSettings base) {
		QueueSettings.Builder settings = base.toBuilder();
		if (this.workers != null) {
			settings.workers(this.workers);
		}
		if (this.visibilityTimeout != null) {
			settings.visibilityTimeout(this.visibilityTimeout);
		}
		if (this.maxAttempts != null) {
			settings.maxAttempts(this.maxAttempts);
		}
		if (this.backoff != null) {
			settings.backoffInitial(this.backoff);
			if (this.backoff.compareTo(base.backoffMax()) > 0) {
				settings.backoffMax(this.backoff);
			}
		}
		return settings.build();
	}

	/**
	 * Return a builder of settings that take everything from {@code redislock.queue.*},
	 * of version 1.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
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

	/**
	 * Builds {@link TaskSettings} by name; a setting left out is taken from
	 * {@code redislock.queue.*}.
	 */
	public static final class Builder {

		private @Nullable Integer maxAttempts;

		private @Nullable Duration backoff;

		private List<Class<? extends Throwable>> noRetryFor = List.of();

		private @Nullable Duration visibilityTimeout;

		private @Nullable Integer workers;

		private int version = 1;

		private Builder() {
		}

		public Builder maxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
			return this;
		}

		public Builder backoff(@Nullable Duration backoff) {
			this.backoff = backoff;
			return this;
		}

		public Builder noRetryFor(List<Class<? extends Throwable>> noRetryFor) {
			this.noRetryFor = noRetryFor;
			return this;
		}

		public Builder visibilityTimeout(@Nullable Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
			return this;
		}

		public Builder workers(@Nullable Integer workers) {
			this.workers = workers;
			return this;
		}

		public Builder version(int version) {
			this.version = version;
			return this;
		}

		/**
		 * Return the settings.
		 * @return the settings
		 */
		public TaskSettings build() {
			return new TaskSettings(this.maxAttempts, this.backoff, this.noRetryFor, this.visibilityTimeout,
					this.workers, this.version);
		}

	}

}
