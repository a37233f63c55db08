/**
 * What the actuator endpoint and the dashboard show and do, with the checks of operator
 * input they share. Not API.
 */
@NullMarked
package io.github.redislock.internal.admin;

import org.jspecify.annotations.NullMarked;
