package io.github.redislock.admin;

/**
 * A waiting task as {@link RedisLockAdmin} lists it: its payload cut to a preview, with
 * its full size.
 *
 * @param id the task id
 * @param dueAt when it is due, epoch milliseconds
 * @param payload the start of its payload
 * @param payloadBytes the size of its payload in UTF-8 bytes
 * @since 0.1.0
 */
public record TaskPreview(String id, long dueAt, String payload, long payloadBytes) {

}
