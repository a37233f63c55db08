/**
 * Building the starter's beans by hand, for applications without Spring Boot (whose
 * auto-configuration builds them from {@code redislock.*} properties).
 */
@NullMarked
package io.github.redislock.config;

import org.jspecify.annotations.NullMarked;
