package io.github.redislock.internal.queue;

import java.util.List;

/**
 * Entries of an operator's list, and whether the list holds all that were asked for (it
 * stops short when it reaches its byte budget).
 *
 * @param <T> the entry type
 * @param entries the entries
 * @param complete whether all that were asked for are in
 * @since 0.1.0
 */
public record Page<T>(List<T> entries, boolean complete) {

}
