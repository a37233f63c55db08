package io.github.redislock.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks liveness from a recorded history: whenever a lock is surely free (no hold of any
 * side can exist in Redis) and someone waits for it with time left, some waiter gets it
 * within a bound. Holds are recorded with an upper bound of how long Redis can have kept
 * them (so "surely free" is never wrong); waits with when they began and ended. A wait
 * that spans a free window longer than the bound is a violation: any acquisition in the
 * window would have ended it.
 */
final class LivenessHistory {

	private final List<Extent> holds = new ArrayList<>();

	private final List<Wait> waits = new ArrayList<>();

	private final Map<String, Integer> capacities = new LinkedHashMap<>();

	private final List<Extent> transitions = new ArrayList<>();

	private long zeroMicros = -1;

	/**
	 * A hold that Redis may have kept from {@code fromMicros} until {@code untilMicros}
	 * at the latest.
	 */
	synchronized void held(String lock, long fromMicros, long untilMicros) {
		held(lock, fromMicros, untilMicros, "");
	}

	/**
	 * A hold as above, described for reports.
	 */
	synchronized void held(String lock, long fromMicros, long untilMicros, String description) {
		this.holds.add(new Extent(lock, fromMicros, untilMicros, description));
	}

	/**
	 * The lock is a semaphore of {@code permits} permits: it is free whenever fewer holds
	 * than that can exist.
	 */
	synchronized void capacity(String lock, int permits) {
		this.capacities.put(lock, permits);
	}

	/**
	 * The lock could not be taken by anyone from {@code fromMicros} to
	 * {@code untilMicros} (its Redis node frozen or dead, say): not free then, whatever
	 * the holds.
	 */
	synchronized void unavailable(String lock, long fromMicros, long untilMicros, String why) {
		this.holds.add(new Extent(lock, fromMicros, untilMicros, UNAVAILABLE + why));
	}

	private static final String UNAVAILABLE = "unavailable: ";

	/**
	 * Something happened to the lock's Redis from {@code fromMicros} to
	 * {@code untilMicros} (a failover, say); only named in reports, next to a violation
	 * that follows it.
	 */
	synchronized void transition(String lock, long fromMicros, long untilMicros, String what) {
		this.transitions.add(new Extent(lock, fromMicros, untilMicros, what));
	}

	/**
	 * Say in reports when each free time began, counted from {@code zeroMicros}.
	 */
	synchronized void timesFrom(long zeroMicros) {
		this.zeroMicros = zeroMicros;
	}

	/**
	 * Someone waited for the lock from {@code fromMicros} to {@code toMicros}.
	 */
	synchronized void waited(String client, String lock, long fromMicros, long toMicros, String outcome) {
		this.waits.add(new Wait(client, lock, fromMicros, toMicros, outcome));
	}

	synchronized int waitCount() {
		return this.waits.size();
	}

	synchronized List<String> violations(long boundMicros) {
		Map<String, List<Extent>> byLock = new LinkedHashMap<>();
		for (Extent hold : this.holds) {
			byLock.computeIfAbsent(hold.lock(), (key) -> new ArrayList<>()).add(hold);
		}
		List<String> violations = new ArrayList<>();
		for (Wait wait : this.waits) {
			List<Extent> lockHolds = byLock.getOrDefault(wait.lock(), List.of());
			// Walk the wait from its start, skipping the time covered by holds; a gap
			// longer than the bound is a free lock nobody took.
			List<Extent> overlapping = new ArrayList<>();
			for (Extent hold : lockHolds) {
				if (hold.untilMicros() > wait.fromMicros() && hold.fromMicros() < wait.toMicros()) {
					overlapping.add(hold);
				}
			}
			overlapping.sort(Comparator.comparingLong(Extent::fromMicros));
			int capacity = this.capacities.getOrDefault(wait.lock(), 1);
			if (capacity > 1) {
				permitViolations(wait, overlapping, capacity, boundMicros, violations);
				continue;
			}
			long free = wait.fromMicros();
			Extent last = null;
			for (Extent hold : overlapping) {
				if (hold.fromMicros() - free > boundMicros) {
					violations.add(describe(wait, free, hold.fromMicros(), last));
				}
				if (hold.untilMicros() > free) {
					free = hold.untilMicros();
					last = hold;
				}
			}
			if (wait.toMicros() - free > boundMicros) {
				violations.add(describe(wait, free, wait.toMicros(), last));
			}
		}
		return violations;
	}

	/**
	 * Sweep the wait: wherever fewer holds than permits existed for longer than the
	 * bound, a permit was free and nobody took it.
	 */
	private void permitViolations(Wait wait, List<Extent> overlapping, int capacity, long boundMicros,
			List<String> violations) {
		List<long[]> events = new ArrayList<>();
		for (Extent hold : overlapping) {
			// An outage takes every permit.
			int permits = hold.description().startsWith(UNAVAILABLE) ? capacity : 1;
			events.add(new long[] { Math.max(hold.fromMicros(), wait.fromMicros()), permits });
			events.add(new long[] { Math.min(hold.untilMicros(), wait.toMicros()), -permits });
		}
		// Ends before starts at the same instant: a hand-over leaves no gap.
		events.sort(Comparator.<long[]>comparingLong((event) -> event[0]).thenComparingLong((event) -> event[1]));
		int held = 0;
		long freeSince = wait.fromMicros();
		for (long[] event : events) {
			int before = held;
			held += (int) event[1];
			if (before < capacity && held >= capacity) {
				if (event[0] - freeSince > boundMicros) {
					violations.add(describe(wait, freeSince, event[0], null) + " (" + before + " of " + capacity
							+ " permits held)");
				}
			}
			else if (before >= capacity && held < capacity) {
				freeSince = event[0];
			}
		}
		if (held < capacity && wait.toMicros() - freeSince > boundMicros) {
			violations.add(describe(wait, freeSince, wait.toMicros(), null) + " (" + held + " of " + capacity
					+ " permits held)");
		}
	}

	private String describe(Wait wait, long freeFrom, long freeTo, Extent last) {
		Extent transition = null;
		for (Extent candidate : this.transitions) {
			if ((candidate.lock().equals(wait.lock()) || candidate.lock().equals("*"))
					&& candidate.fromMicros() < freeTo
					&& (transition == null || candidate.fromMicros() > transition.fromMicros())) {
				transition = candidate;
			}
		}
		String after = "";
		if (transition != null) {
			long endedBefore = (freeFrom - transition.untilMicros()) / 1000;
			after = "; last transition: " + transition.description()
					+ ((endedBefore >= 0) ? ", ended " + endedBefore + " ms before the free time began"
							: ", under way when the free time began (ended " + -endedBefore + " ms later)");
		}
		return "lock '" + wait.lock() + "' was free for " + (freeTo - freeFrom) / 1000 + " ms"
				+ ((this.zeroMicros >= 0) ? " from " + (freeFrom - this.zeroMicros) / 1000 + " ms of the run" : "")
				+ " while " + wait.client() + " waited (" + wait.outcome() + ", waited "
				+ (wait.toMicros() - wait.fromMicros()) / 1000 + " ms)"
				+ ((last != null && !last.description().isEmpty()) ? "; last hold before: " + last.description() : "")
				+ after;
	}

	record Extent(String lock, long fromMicros, long untilMicros, String description) {
	}

	record Wait(String client, String lock, long fromMicros, long toMicros, String outcome) {
	}

}
