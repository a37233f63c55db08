/**
 * The {@code redislock} actuator endpoint.
 */
@NullMarked
package io.github.redislock.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
