package io.github.redislock.internal.queue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.internal.HashTags;

import org.springframework.util.Assert;

/**
 * Redis key layout of the task queues. A task is one enqueued call; it gets a handle of
 * its own (a number unique in its queue), and everything a task has is stored under its
 * handle, so tasks that share an id share nothing else. For a queue {@code Q} under the
 * key prefix {@code P}, every key carries the hash tag {@code {Q}} (braces and
 * backslashes of the name escaped, {@link HashTags}), so a queue lives in one Cluster
 * slot:
 * <ul>
 * <li>{@code P:queue:{Q}:ready} — sorted set: handle of a waiting task → due time (server
 * ms);</li>
 * <li>{@code P:queue:{Q}:waiting} — hash: task id → handles of its waiting tasks, oldest
 * first (deduplication, {@code dequeue});</li>
 * <li>{@code P:queue:{Q}:tasks} — hash: {@code handle:id}, {@code handle:payload},
 * {@code handle:attempts} of every waiting or running task, and where there is one its
 * caller's {@code handle:context}, dedup window {@code handle:dedup}, enqueue call
 * {@code handle:call} (until claimed) and the {@code handle:version} of the method its
 * payload was written for;</li>
 * <li>{@code P:queue:{Q}:inflight} — sorted set: handle of a claimed task → visibility
 * deadline;</li>
 * <li>{@code P:queue:{Q}:running} — hash: task id → handle of its one claimed task;</li>
 * <li>{@code P:queue:{Q}:claims} — hash: handle of a claimed task → claim token;</li>
 * <li>{@code P:queue:{Q}:seq} — the last handle given; deleted when no task waits or runs
 * (handles are at least the server clock in µs, so they keep increasing);</li>
 * <li>{@code P:queue:{Q}:dead} — sorted set: dead task id → when it died (server µs); at
 * most one per id;</li>
 * <li>{@code P:queue:{Q}:dead-info} — hash: dead task id → JSON with error and attempts
 * (and its version, when recorded);</li>
 * <li>{@code P:queue:{Q}:dead-payloads} — hash: dead task id → its payload;</li>
 * <li>{@code P:queue:{Q}:paused} — present while the queue is paused;</li>
 * <li>{@code P:queue:{Q}:idle} — present while a worker waits for a wake-up: the latest
 * time (epoch ms) at which such a worker looks again by itself;</li>
 * <li>{@code P:queue:{Q}:dedup} — sorted set: task id → until when (epoch ms) a task of
 * it enqueued with a dedup window keeps it from being enqueued again; expires with its
 * last mark;</li>
 * <li>{@code P:queue:{Q}:settled} — sorted set: {@code handle token} of the settles of
 * the last minute (at most 10,000) → when, so that a settle sent again answers as its
 * first run did; expires a minute after the last settle;</li>
 * <li>{@code P:queue:{Q}:parked} — sorted set: handle of a due waiting task whose id runs
 * → due time, set aside until that run ends (so that claims need not page past it);</li>
 * <li>{@code P:queue:{Q}:claim:C} — what the claim call {@code C} did (JSON: the handle
 * and token pairs it claimed, the ids it sent to the dead letters), for a minute, so that
 * the call sent again answers the same;</li>
 * <li>channel {@code P:queue:ready} — carries the queue name when a task is due at
 * once.</li>
 * </ul>
 * The three dead-letter keys expire the maximum dead-letter age after the newest death.
 */
final class QueueKeys {

	/** Queues whose keys are kept made, rather than made on every call. */
	private static final int MAX_CACHED = 1000;

	private final String prefix;

	private final Map<String, List<String>> cache = new ConcurrentHashMap<>();

	QueueKeys(String prefix) {
		HashTags.checkPrefix(prefix);
		this.prefix = prefix;
	}

	/**
	 * Every key of a queue, in the order the scripts read them (see queue.lua).
	 */
	List<String> all(String queue) {
		List<String> keys = this.cache.get(queue);
		if (keys == null) {
			keys = keys(queue);
			if (this.cache.size() < MAX_CACHED) {
				this.cache.put(queue, keys);
			}
		}
		return keys;
	}

	private List<String> keys(String queue) {
		Assert.hasText(queue, "Queue name must not be empty");
		Assert.isTrue(queue.length() <= 500, () -> "Queue name is longer than 500 characters: " + queue);
		String base = this.prefix + ":queue:" + HashTags.of(queue);
		return List.of(base + ":ready", base + ":waiting", base + ":tasks", base + ":inflight", base + ":running",
				base + ":claims", base + ":seq", base + ":dead", base + ":dead-info", base + ":dead-payloads",
				base + ":paused", base + ":idle", base + ":dedup", base + ":settled", base + ":parked");
	}

	/**
	 * The key present while a queue is paused (one of {@link #all(String)}).
	 */
	String paused(String queue) {
		return all(queue).get(10);
	}

	/**
	 * The key of one claim call (what it claimed, for a minute): {@code call} is made by
	 * the claimer, never from input.
	 */
	String claimCall(String queue, String call) {
		String ready = all(queue).get(0);
		return ready.substring(0, ready.length() - ":ready".length()) + ":claim:" + call;
	}

	String channel() {
		return this.prefix + ":queue:ready";
	}

}
