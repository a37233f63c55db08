package io.github.redislock.internal.metrics;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.github.redislock.internal.queue.QueueDepths;
import io.github.redislock.internal.queue.QueueObserver;
import io.github.redislock.internal.queue.RedisTaskQueue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Micrometer meters of the task queues, tagged {@code queue}:
 * <ul>
 * <li>{@code redislock.queue.enqueued} counter;</li>
 * <li>{@code redislock.queue.processed} counter, tag {@code outcome} ({@code success},
 * {@code retry}, {@code dead});</li>
 * <li>{@code redislock.queue.depth} gauge, tag {@code state} ({@code ready},
 * {@code delayed}, {@code inflight}, {@code dead});</li>
 * <li>{@code redislock.queue.lag} gauge — seconds the oldest due task has waited;</li>
 * <li>{@code redislock.queue.claims.lost} counter — running tasks whose claim was found
 * lost (another worker may run them now).</li>
 * </ul>
 * The gauges of a queue are read from Redis in one script, at most once per second.
 *
 * @since 0.1.0
 */
public class TaskQueueMetrics implements QueueObserver, SmartInitializingSingleton {

	private static final Duration SNAPSHOT_AGE = Duration.ofSeconds(1);

	private final MeterRegistry registry;

	private final RedisTaskQueue queue;

	private final Map<String, Snapshot> snapshots = new ConcurrentHashMap<>();

	private final Supplier<Collection<String>> queueNames;

	/**
	 * Create the meters.
	 * @param registry where to register them
	 * @param queue the queues
	 * @param queueNames the queues this instance handles, whose gauges are registered
	 * once all beans exist
	 */
	public TaskQueueMetrics(MeterRegistry registry, RedisTaskQueue queue, Supplier<Collection<String>> queueNames) {
		this.registry = registry;
		this.queue = queue;
		this.queueNames = queueNames;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.queueNames.get().forEach(this::bindQueue);
	}

	/**
	 * Register the depth and lag gauges of a queue.
	 * @param name the queue name
	 */
	public void bindQueue(String name) {
		gauge(name, "ready", QueueDepths::ready);
		gauge(name, "delayed", QueueDepths::delayed);
		gauge(name, "inflight", QueueDepths::inflight);
		gauge(name, "dead", QueueDepths::dead);
		Gauge.builder("redislock.queue.lag", () -> depths(name).lagMillis() / 1000.0)
			.description("Seconds the oldest due task has waited")
			.baseUnit("seconds")
			.tags("queue", name)
			.register(this.registry);
	}

	private void gauge(String name, String state, ToDoubleFunction<QueueDepths> value) {
		Gauge.builder("redislock.queue.depth", () -> value.applyAsDouble(depths(name)))
			.description("Tasks of a queue in each state")
			.tags("queue", name, "state", state)
			.register(this.registry);
	}

	private QueueDepths depths(String name) {
		Snapshot snapshot = this.snapshots.get(name);
		long now = System.nanoTime();
		if (snapshot == null || now - snapshot.takenNanos() > SNAPSHOT_AGE.toNanos()) {
			snapshot = new Snapshot(this.queue.depths(name), now);
			this.snapshots.put(name, snapshot);
		}
		return snapshot.depths();
	}

	@Override
	public void enqueued(String queue) {
		Counter.builder("redislock.queue.enqueued")
			.description("Tasks enqueued")
			.tags("queue", queue)
			.register(this.registry)
			.increment();
	}

	@Override
	public void processed(String queue, String outcome) {
		Counter.builder("redislock.queue.processed")
			.description("Task runs finished")
			.tags("queue", queue, "outcome", outcome)
			.register(this.registry)
			.increment();
	}

	@Override
	public void claimLost(String queue) {
		Counter.builder("redislock.queue.claims.lost")
			.description("Running tasks whose claim was found lost")
			.tags("queue", queue)
			.register(this.registry)
			.increment();
	}

	private record Snapshot(QueueDepths depths, long takenNanos) {
	}

}
