package io.github.redislock.queue;

/**
 * A task of a {@link TaskQueue}.
 *
 * @param id the task id
 * @param score the due time, in epoch milliseconds of the Redis server's clock
 * @param payload the stored JSON payload
 * @since 0.1.0
 */
public record TaskEntry(String id, double score, String payload) {
}
