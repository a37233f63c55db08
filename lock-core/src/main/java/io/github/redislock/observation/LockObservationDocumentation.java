package io.github.redislock.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of annotated lock methods. They feed tracing; the starter keeps Spring
 * Boot's meter observation handler from turning them into timers, because the lock engine
 * already measures every acquisition and hold as {@code redislock.acquire} and
 * {@code redislock.held}: one event, one timer family.
 *
 * @since 0.1.0
 */
public enum LockObservationDocumentation implements ObservationDocumentation {

	/**
	 * An annotated call waiting for its lock.
	 */
	LOCK_WAIT {

		@Override
		public String getName() {
			return "redislock.lock.wait";
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	},

	/**
	 * An annotated call running under its lock.
	 */
	LOCK_HOLD {

		@Override
		public String getName() {
			return "redislock.lock.hold";
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeyNames.NAME, LowCardinalityKeyNames.TYPE };
		}

	};

	@Override
	public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
		return DefaultLockObservationConvention.class;
	}

	@Override
	public KeyName[] getHighCardinalityKeyNames() {
		return HighCardinalityKeyNames.values();
	}

	/**
	 * Low-cardinality keys.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The annotation's lock name, never a per-call key. */
		NAME {
			@Override
			public String asString() {
				return "name";
			}
		},

		/** {@code exclusive}, {@code read} or {@code write}. */
		TYPE {
			@Override
			public String asString() {
				return "type";
			}
		},

		/** How the wait ended: {@code acquired}, {@code timeout} or {@code error}. */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		}

	}

	/**
	 * High-cardinality keys.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/** The full lock name ({@code name:key}). */
		LOCK {
			@Override
			public String asString() {
				return "lock";
			}
		}

	}

}
