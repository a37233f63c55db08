package io.github.redislock.internal.lock;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.core.HeldLock;
import org.jspecify.annotations.Nullable;

/**
 * The holds this instance has, keyed by lock key and thread.
 */
final class HoldRegistry {

	private final ConcurrentHashMap<HoldKey, LockHold> holds = new ConcurrentHashMap<>();

	@Nullable LockHold get(String lockKey, long threadId) {
		return this.holds.get(new HoldKey(lockKey, threadId));
	}

	void add(LockHold hold) {
		this.holds.put(new HoldKey(hold.key(), hold.threadId()), hold);
	}

	void remove(LockHold hold) {
		this.holds.remove(new HoldKey(hold.key(), hold.threadId()), hold);
	}

	Collection<LockHold> all() {
		return this.holds.values();
	}

	List<LockHold> watchdogHolds() {
		List<LockHold> result = new ArrayList<>();
		for (LockHold hold : this.holds.values()) {
			if (hold.renewable()) {
				result.add(hold);
			}
		}
		return result;
	}

	/**
	 * Describe the holds, longest held first.
	 */
	List<HeldLock> describe() {
		return this.holds.values()
			.stream()
			.map(LockHold::describe)
			.sorted(Comparator.comparing(HeldLock::heldFor).reversed())
			.toList();
	}

	int size() {
		return this.holds.size();
	}

	private record HoldKey(String lockKey, long threadId) {
	}

}
