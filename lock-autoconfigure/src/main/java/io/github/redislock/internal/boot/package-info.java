/**
 * Spring Boot's side of the annotations: failure analysis of their start-up errors. Not
 * API.
 */
@NullMarked
package io.github.redislock.internal.boot;

import org.jspecify.annotations.NullMarked;
