package io.github.redislock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * An {@link ObservationConvention} for {@link LockObservationContext}: implement it (as a
 * {@code GlobalObservationConvention} bean, say) to change the names or key values of the
 * lock observations.
 *
 * @since 0.1.0
 */
public interface LockObservationConvention extends ObservationConvention<LockObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockObservationContext;
	}

}
