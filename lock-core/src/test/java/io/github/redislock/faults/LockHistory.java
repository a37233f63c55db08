package io.github.redislock.faults;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The history of who believed they held which exclusive lock, and of what a fenced
 * resource accepted; checked afterwards.
 * <p>
 * A hold is the interval a client believed it held a lock — from the return of its
 * acquire to its release call, or to its local deadline when that came first — with its
 * fencing token. Times are wall-clock microseconds, so holds recorded by different
 * processes on one machine compare. A hold is exclusive (a lock, a write lock) or shared
 * (a read lock). The checks, for every two holds of one lock of which at least one is
 * exclusive:
 * <ul>
 * <li>the one that started later has the greater fencing token;</li>
 * <li>their believed-held intervals do not overlap;</li>
 * <li>per resource, no write with an older token was accepted after one with a newer
 * token.</li>
 * </ul>
 * Public for the lock kinds' contract suite ({@code LockContractTests}).
 */
public final class LockHistory {

	private final List<Hold> holds = new ArrayList<>();

	private final List<Write> writes = new ArrayList<>();

	private final List<Permit> permits = new ArrayList<>();

	/**
	 * Return the wall clock in microseconds, comparable across processes on one machine.
	 */
	public static long nowMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
	}

	public synchronized void held(String client, String lock, long token, long fromMicros, long toMicros) {
		this.holds.add(new Hold(client, lock, false, token, fromMicros, toMicros));
	}

	public synchronized void heldShared(String client, String lock, long token, long fromMicros, long toMicros) {
		this.holds.add(new Hold(client, lock, true, token, fromMicros, toMicros));
	}

	/**
	 * Record a believed-held permit of a semaphore of {@code permits} permits, asked for
	 * at {@code sentMicros}: at no moment may more than that many be believed held, and a
	 * permit asked for after another one was no longer believed held has the greater
	 * token (one asked for earlier may have been granted earlier, whenever it returned).
	 */
	public synchronized void heldPermit(String client, String semaphore, int permits, long token, long sentMicros,
			long fromMicros, long toMicros) {
		this.permits.add(new Permit(client, semaphore, permits, token, sentMicros, fromMicros, toMicros));
	}

	/**
	 * Record a write a fenced resource accepted (in the order it accepted them).
	 */
	synchronized void accepted(String resource, String client, long token) {
		this.writes.add(new Write(resource, client, token));
	}

	public synchronized int holdCount() {
		return this.holds.size() + this.permits.size();
	}

	/**
	 * Return every violation found, empty when the history is sound.
	 */
	public synchronized List<String> violations() {
		List<String> violations = new ArrayList<>();
		Map<String, List<Hold>> byLock = new LinkedHashMap<>();
		for (Hold hold : this.holds) {
			if (hold.toMicros() < hold.fromMicros()) {
				violations.add("hold ends before it starts: " + hold);
			}
			byLock.computeIfAbsent(hold.lock(), (key) -> new ArrayList<>()).add(hold);
		}
		for (List<Hold> lockHolds : byLock.values()) {
			lockHolds.sort(Comparator.comparingLong(Hold::fromMicros));
			for (int i = 0; i < lockHolds.size(); i++) {
				Hold before = lockHolds.get(i);
				for (int j = i + 1; j < lockHolds.size(); j++) {
					Hold after = lockHolds.get(j);
					if (before.shared() && after.shared()) {
						continue;
					}
					if (after.token() <= before.token()) {
						violations.add("fencing token did not increase: " + before + " then " + after);
					}
					if (after.fromMicros() < before.toMicros()) {
						violations.add("believed-held intervals overlap by " + (before.toMicros() - after.fromMicros())
								+ "us: " + before + " and " + after);
					}
				}
			}
		}
		permitViolations(violations);
		Map<String, Write> newest = new LinkedHashMap<>();
		for (Write write : this.writes) {
			Write previous = newest.get(write.resource());
			if (previous != null && write.token() < previous.token()) {
				violations.add("resource accepted an older token after a newer one: " + previous + " then " + write);
			}
			else {
				newest.put(write.resource(), write);
			}
		}
		return violations;
	}

	private void permitViolations(List<String> violations) {
		Map<String, List<Permit>> bySemaphore = new LinkedHashMap<>();
		for (Permit permit : this.permits) {
			if (permit.toMicros() < permit.fromMicros()) {
				violations.add("permit held until before it was taken: " + permit);
			}
			bySemaphore.computeIfAbsent(permit.semaphore(), (key) -> new ArrayList<>()).add(permit);
		}
		for (List<Permit> held : bySemaphore.values()) {
			held.sort(Comparator.comparingLong(Permit::fromMicros));
			for (int i = 0; i < held.size(); i++) {
				Permit permit = held.get(i);
				// Everyone believed to hold a permit when this one was taken.
				List<Permit> together = new ArrayList<>();
				for (int j = 0; j < i; j++) {
					Permit before = held.get(j);
					if (before.toMicros() > permit.fromMicros()) {
						together.add(before);
					}
					else if (before.toMicros() < permit.sentMicros() && before.token() >= permit.token()) {
						violations.add("fencing token did not increase: " + before + " then " + permit);
					}
				}
				together.add(permit);
				if (together.size() > permit.permits()) {
					violations.add(together.size() + " permits of " + permit.permits() + " believed held at once: "
							+ together);
				}
			}
		}
	}

	record Permit(String client, String semaphore, int permits, long token, long sentMicros, long fromMicros,
			long toMicros) {
	}

	record Hold(String client, String lock, boolean shared, long token, long fromMicros, long toMicros) {
	}

	record Write(String resource, String client, long token) {
	}

}
