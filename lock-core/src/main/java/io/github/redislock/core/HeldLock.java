package io.github.redislock.core;

import java.time.Duration;

/**
 * A lock hold of this instance, as the actuator endpoint shows it.
 *
 * @param name the full lock name
 * @param type {@code exclusive}, {@code read} or {@code write}
 * @param heldFor how long it has been held
 * @param leaseLeft how long it is sure to last without a renewal (from this instance's
 * local deadline); zero when lost
 * @param fencingToken its fencing token
 * @param holdCount how many times the holding thread holds it
 * @since 0.1.0
 */
public record HeldLock(String name, String type, Duration heldFor, Duration leaseLeft, long fencingToken,
		int holdCount) {
}
