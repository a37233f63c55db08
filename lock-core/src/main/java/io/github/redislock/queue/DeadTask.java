package io.github.redislock.queue;

/**
 * A task that failed {@code redislock.queue.max-attempts} times and was moved to its
 * queue's dead letters.
 *
 * @param id the task id
 * @param diedAt when it was moved there, epoch milliseconds of the Redis server's clock
 * @param attempts how many times it was run
 * @param error the last failure, as {@code ExceptionClass: message}
 * @param payload the stored JSON payload
 * @since 0.1.0
 */
public record DeadTask(String id, long diedAt, int attempts, String error, String payload) {
}
