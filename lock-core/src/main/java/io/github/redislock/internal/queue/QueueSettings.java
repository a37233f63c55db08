package io.github.redislock.internal.queue;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How the workers of this instance run queued tasks. Made with {@link #builder()}, which
 * starts from the defaults of {@code redislock.queue.*}.
 *
 * @param workers concurrent tasks per queue on this instance; 0: produce only
 * @param pollInterval idle pause between two looks at a queue, on an instance with one
 * queue; an instance with N queues looks at each idle queue every N poll intervals (at
 * most every 60 s, unless the poll interval is longer)
 * @param batchSize most tasks taken in one claim
 * @param visibilityTimeout how long a claimed task stays invisible to other workers
 * without a renewal; running tasks are renewed every third of it
 * @param maxAttempts runs before a failing task goes to the dead letters
 * @param backoffInitial pause before the first retry
 * @param backoffMultiplier factor applied to the pause for each further retry
 * @param backoffMax longest pause between retries
 * @param shutdownTimeout how long running tasks may finish at shutdown
 * @param deadLetterMaxSize most dead tasks kept per queue
 * @param deadLetterMaxAge how long dead tasks are kept
 * @since 0.1.0
 */
public record QueueSettings(int workers, Duration pollInterval, int batchSize, Duration visibilityTimeout,
		int maxAttempts, Duration backoffInitial, double backoffMultiplier, Duration backoffMax,
		Duration shutdownTimeout, int deadLetterMaxSize, Duration deadLetterMaxAge) {

	public QueueSettings {
		Assert.isTrue(workers >= 0, "'workers' must not be negative");
		Assert.isTrue(batchSize > 0, "'batchSize' must be positive");
		Assert.isTrue(maxAttempts > 0, "'maxAttempts' must be positive");
		Assert.isTrue(visibilityTimeout.toMillis() >= 30, "'visibilityTimeout' must be at least 30ms");
		Assert.isTrue(pollInterval.toMillis() > 0, "'pollInterval' must be positive");
		Assert.isTrue(backoffMultiplier >= 1, "'backoffMultiplier' must be at least 1");
	}

	/**
	 * Return a builder that starts from the defaults of {@code redislock.queue.*}.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Return a builder that starts from these settings.
	 * @return a builder
	 */
	public Builder toBuilder() {
		return new Builder().workers(this.workers)
			.pollInterval(this.pollInterval)
			.batchSize(this.batchSize)
			.visibilityTimeout(this.visibilityTimeout)
			.maxAttempts(this.maxAttempts)
			.backoffInitial(this.backoffInitial)
			.backoffMultiplier(this.backoffMultiplier)
			.backoffMax(this.backoffMax)
			.shutdownTimeout(this.shutdownTimeout)
			.deadLetterMaxSize(this.deadLetterMaxSize)
			.deadLetterMaxAge(this.deadLetterMaxAge);
	}

	/**
	 * Return the pause before retrying after the given failed attempt (1 for the first).
	 */
	Duration backoff(int attempt) {
		double millis = this.backoffInitial.toMillis() * Math.pow(this.backoffMultiplier, Math.max(0, attempt - 1));
		return Duration.ofMillis((long) Math.min(millis, this.backoffMax.toMillis()));
	}

	/**
	 * Builds {@link QueueSettings} by name; see the record's components for what each
	 * setting means.
	 */
	public static final class Builder {

		private int workers = 4;

		private Duration pollInterval = Duration.ofSeconds(2);

		private int batchSize = 16;

		private Duration visibilityTimeout = Duration.ofSeconds(30);

		private int maxAttempts = 5;

		private Duration backoffInitial = Duration.ofSeconds(1);

		private double backoffMultiplier = 2.0;

		private Duration backoffMax = Duration.ofMinutes(5);

		private Duration shutdownTimeout = Duration.ofSeconds(30);

		private int deadLetterMaxSize = 10_000;

		private Duration deadLetterMaxAge = Duration.ofDays(7);

		private Builder() {
		}

		public Builder workers(int workers) {
			this.workers = workers;
			return this;
		}

		public Builder pollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
			return this;
		}

		public Builder batchSize(int batchSize) {
			this.batchSize = batchSize;
			return this;
		}

		public Builder visibilityTimeout(Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
			return this;
		}

		public Builder maxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
			return this;
		}

		public Builder backoffInitial(Duration backoffInitial) {
			this.backoffInitial = backoffInitial;
			return this;
		}

		public Builder backoffMultiplier(double backoffMultiplier) {
			this.backoffMultiplier = backoffMultiplier;
			return this;
		}

		public Builder backoffMax(Duration backoffMax) {
			this.backoffMax = backoffMax;
			return this;
		}

		public Builder shutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
			return this;
		}

		public Builder deadLetterMaxSize(int deadLetterMaxSize) {
			this.deadLetterMaxSize = deadLetterMaxSize;
			return this;
		}

		public Builder deadLetterMaxAge(Duration deadLetterMaxAge) {
			this.deadLetterMaxAge = deadLetterMaxAge;
			return this;
		}

		/**
		 * Return the settings.
		 * @return the settings
		 * @throws IllegalArgumentException when a setting cannot work
		 */
		public QueueSettings build() {
			return new QueueSettings(this.workers, this.pollInterval, this.batchSize, this.visibilityTimeout,
					this.maxAttempts, this.backoffInitial, this.backoffMultiplier, this.backoffMax,
					this.shutdownTimeout, this.deadLetterMaxSize, this.deadLetterMaxAge);
		}

	}

}
