/**
 * What an operator sees and does: the queues, their dead letters and upcoming tasks, the
 * locks this instance holds and who holds any lock — behind the {@code redislock}
 * actuator endpoint and the dashboard.
 */
@NullMarked
package io.github.redislock.admin;

import org.jspecify.annotations.NullMarked;
