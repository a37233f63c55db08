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

	private static String describe(Wait wait, long freeFrom, long freeTo, Extent last) {
		return "lock '" + wait.lock() + "' was free for " + (freeTo - freeFrom) / 1000 + " ms while " + wait.client()
				+ " waited (" + wait.outcome() + ", waited " + (wait.toMicros() - wait.fromMicros()) / 1000 + " ms)"
				+ ((last != null && !last.description().isEmpty()) ? "; last hold before: " + last.description() : "");
	}

	record Extent(String lock, long fromMicros, long untilMicros, String description) {
	}

	record Wait(String client, String lock, long fromMicros, long toMicros, String outcome) {
	}

}
