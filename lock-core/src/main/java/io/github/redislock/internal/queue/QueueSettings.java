package io.github.redislock.internal.queue;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How the workers of this instance run queued tasks.
 *
 * @param workers concurrent tasks per queue on this instance; 0: produce only
 * @param pollInterval longest idle pause between two looks at a queue
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
	 * Return the pause before retrying after the given failed attempt (1 for the first).
	 */
	Duration backoff(int attempt) {
		double millis = this.backoffInitial.toMillis() * Math.pow(this.backoffMultiplier, Math.max(0, attempt - 1));
		return Duration.ofMillis((long) Math.min(millis, this.backoffMax.toMillis()));
	}

}
