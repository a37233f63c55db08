package io.github.redislock.observation;

import io.github.redislock.core.LockKind;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@link LockObservationDocumentation} observation: one annotated call
 * waiting for its lock, or running under it.
 *
 * @since 0.1.0
 */
public class LockObservationContext extends Observation.Context {

	private final Phase phase;

	private final String declaredName;

	private final LockKind kind;

	private final String lockName;

	private volatile @Nullable String outcome;

	/**
	 * Create a context.
	 * @param phase whether this is the wait or the hold
	 * @param declaredName the annotation's lock name (never a per-call key)
	 * @param kind the kind of lock
	 * @param lockName the full lock name ({@code name:key})
	 */
	public LockObservationContext(Phase phase, String declaredName, LockKind kind, String lockName) {
		this.phase = phase;
		this.declaredName = declaredName;
		this.kind = kind;
		this.lockName = lockName;
	}

	/**
	 * Return whether this is the wait or the hold.
	 * @return the phase
	 */
	public Phase getPhase() {
		return this.phase;
	}

	/**
	 * Return the annotation's lock name.
	 * @return the declared name
	 */
	public String getDeclaredName() {
		return this.declaredName;
	}

	/**
	 * Return the kind of lock.
	 * @return the kind
	 */
	public LockKind getKind() {
		return this.kind;
	}

	/**
	 * Return the full lock name ({@code name:key}).
	 * @return the lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * Return how the wait ended ({@code acquired}, {@code timeout} or {@code error}), or
	 * {@code null} while it lasts and for a hold.
	 * @return the outcome
	 */
	public @Nullable String getOutcome() {
		return this.outcome;
	}

	/**
	 * Set how the wait ended.
	 * @param outcome {@code acquired}, {@code timeout} or {@code error}
	 */
	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

	/**
	 * The part of an annotated call an observation covers.
	 */
	public enum Phase {

		/** Waiting for the lock. */
		WAIT,

		/** Running the method under the lock. */
		HOLD

	}

}
