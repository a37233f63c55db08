package io.github.redislock.admin;

/**
 * A dead letter as {@link RedisLockAdmin} lists it: its error and payload cut to a
 * preview, with their full sizes.
 *
 * @param id the task id
 * @param diedAt when it died, epoch milliseconds
 * @param attempts how many times it ran
 * @param error the start of its last error
 * @param errorBytes the size of its last error in UTF-8 bytes
 * @param payload the start of its payload
 * @param payloadBytes the size of its payload in UTF-8 bytes
 * @since 0.1.0
 */
public record DeadLetterPreview(String id, long diedAt, int attempts, String error, long errorBytes, String payload,
		long payloadBytes) {

}
