/**
 * Spring Boot auto-configuration of the distributed locks, and their properties.
 */
@NullMarked
package io.github.redislock.autoconfigure;

import org.jspecify.annotations.NullMarked;
