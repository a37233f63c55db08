package io.github.redislock.observation;

import io.github.redislock.observation.LockObservationDocumentation.HighCardinalityKeyNames;
import io.github.redislock.observation.LockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link LockObservationConvention}s, {@link #WAIT}
 * ({@code redislock.lock.wait}) and {@link #HOLD} ({@code redislock.lock.hold}), with the
 * declared name, the lock type and (for the wait) the outcome as low-cardinality key
 * values and the full lock name as a high-cardinality one.
 *
 * @since 0.1.0
 */
public class DefaultLockObservationConvention implements LockObservationConvention {

	/** The convention of the wait, {@code redislock.lock.wait}. */
	public static final DefaultLockObservationConvention WAIT = new DefaultLockObservationConvention(
			"redislock.lock.wait");

	/** The convention of the hold, {@code redislock.lock.hold}. */
	public static final DefaultLockObservationConvention HOLD = new DefaultLockObservationConvention(
			"redislock.lock.hold");

	private final String name;

	/**
	 * Create a convention for observations named {@code name}.
	 * @param name the observation name
	 */
	protected DefaultLockObservationConvention(String name) {
		this.name = name;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public String getContextualName(LockObservationContext context) {
		return ((context.getPhase() == LockObservationContext.Phase.WAIT) ? "lock wait " : "lock hold ")
				+ context.getDeclaredName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
		KeyValues values = KeyValues.of(LowCardinalityKeyNames.NAME.withValue(context.getDeclaredName()),
				LowCardinalityKeyNames.TYPE.withValue(context.getKind().tag()));
		String outcome = context.getOutcome();
		return (outcome != null) ? values.and(LowCardinalityKeyNames.OUTCOME.withValue(outcome)) : values;
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
		return KeyValues.of(HighCardinalityKeyNames.LOCK.withValue(context.getLockName()));
	}

}
