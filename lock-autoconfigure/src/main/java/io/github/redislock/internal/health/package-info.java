/**
 * The {@code redislock} health indicator; not part of the starter's API (contributed
 * under the name {@code redislock}, replaced by a bean of that name).
 */
@NullMarked
package io.github.redislock.internal.health;

import org.jspecify.annotations.NullMarked;
