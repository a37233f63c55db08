/**
 * Helpers shared by the starter's packages; not part of its API and free to change.
 */
@NullMarked
package io.github.redislock.internal;

import org.jspecify.annotations.NullMarked;
