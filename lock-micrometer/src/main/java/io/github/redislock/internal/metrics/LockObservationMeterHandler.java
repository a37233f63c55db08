package io.github.redislock.internal.metrics;

import io.github.redislock.internal.queue.TaskObservations;
import io.github.redislock.observation.LockObservationContext;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;

/**
 * The meter observation handler of the lock and task observations: it records nothing.
 * Ordered first in Spring Boot's group of meter observation handlers, of which only the
 * first that supports a context is called, it keeps the default handler from turning the
 * lock observations into {@code redislock.lock.*} and {@code redislock.task.*} timers:
 * {@link RedisLockMetrics} already measures every acquisition and hold as
 * {@code redislock.acquire} and {@code redislock.held}, and {@link TaskQueueMetrics}
 * counts the tasks. Tracing handlers are not in that group and still see them.
 *
 * @since 0.1.0
 */
public final class LockObservationMeterHandler implements MeterObservationHandler<LockObservationContext> {

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof LockObservationContext || TaskObservations.isTaskContext(context);
	}

}
