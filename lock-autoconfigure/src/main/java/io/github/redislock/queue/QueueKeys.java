package io.github.redislock.queue;

import java.util.List;

import org.springframework.util.Assert;

/**
 * Redis key layout of the task queues. For a queue {@code Q} under the key prefix
 * {@code P}, every key carries the hash tag {@code {Q}} so a queue lives in one Cluster
 * slot:
 * <ul>
 * <li>{@code P:queue:{Q}:ready} — sorted set: waiting task id → due time (server
 * ms);</li>
 * <li>{@code P:queue:{Q}:payloads} — hash: task id → JSON payload;</li>
 * <li>{@code P:queue:{Q}:inflight} — sorted set: claimed task id → visibility
 * deadline;</li>
 * <li>{@code P:queue:{Q}:claims} — hash: claimed task id → claim token;</li>
 * <li>{@code P:queue:{Q}:attempts} — hash: task id → how often it was claimed;</li>
 * <li>{@code P:queue:{Q}:seq} — counter behind the claim tokens;</li>
 * <li>{@code P:queue:{Q}:dead} — sorted set: dead task id → when it died;</li>
 * <li>{@code P:queue:{Q}:dead-info} — hash: dead task id → JSON with error and
 * attempts;</li>
 * <li>channel {@code P:queue:ready} — carries the queue name when a task is due at
 * once.</li>
 * </ul>
 */
final class QueueKeys {

	private final String prefix;

	QueueKeys(String prefix) {
		this.prefix = prefix;
	}

	private String base(String queue) {
		Assert.hasText(queue, "Queue name must not be empty");
		Assert.isTrue(queue.length() <= 500, () -> "Queue name is longer than 500 characters: " + queue);
		return this.prefix + ":queue:{" + queue + "}";
	}

	/**
	 * Ready and payloads.
	 */
	List<String> waiting(String queue) {
		String base = base(queue);
		return List.of(base + ":ready", base + ":payloads");
	}

	/**
	 * Ready, payloads, in-flight, claims, attempts, then {@code last}.
	 */
	List<String> all(String queue, String last) {
		String base = base(queue);
		return List.of(base + ":ready", base + ":payloads", base + ":inflight", base + ":claims", base + ":attempts",
				base + ":" + last);
	}

	/**
	 * Ready, payloads, in-flight, claims, attempts, dead, dead info.
	 */
	List<String> settling(String queue) {
		String base = base(queue);
		return List.of(base + ":ready", base + ":payloads", base + ":inflight", base + ":claims", base + ":attempts",
				base + ":dead", base + ":dead-info");
	}

	String channel() {
		return this.prefix + ":queue:ready";
	}

}
