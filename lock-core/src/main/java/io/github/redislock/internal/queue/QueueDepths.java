package io.github.redislock.internal.queue;

/**
 * How many tasks of a queue are in each state, read in one script.
 *
 * @param ready waiting and due
 * @param delayed waiting, not due yet
 * @param inflight being run
 * @param dead in the dead letters
 * @param lagMillis how long the oldest due task has waited
 * @param paused whether the queue is paused
 * @since 0.1.0
 */
public record QueueDepths(long ready, long delayed, long inflight, long dead, long lagMillis, boolean paused) {
}
