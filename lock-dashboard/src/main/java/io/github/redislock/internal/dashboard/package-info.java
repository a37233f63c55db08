/**
 * The operator's dashboard page of a servlet application. Not API.
 */
@NullMarked
package io.github.redislock.internal.dashboard;

import org.jspecify.annotations.NullMarked;
