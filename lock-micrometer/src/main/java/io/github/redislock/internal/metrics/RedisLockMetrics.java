package io.github.redislock.internal.metrics;

import java.time.Duration;
import java.util.function.Supplier;

import io.github.redislock.core.LockKind;
import io.github.redislock.core.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Micrometer meters of the locks:
 * <ul>
 * <li>{@code redislock.acquire} timer — how long acquiring took; tags {@code name},
 * {@code type} ({@code exclusive}, {@code read}, {@code write}), {@code outcome}
 * ({@code acquired}, {@code timeout}, {@code error});</li>
 * <li>{@code redislock.held} timer — how long locks were held; tags {@code name},
 * {@code type};</li>
 * <li>{@code redislock.active} gauge — locks held now by this instance;</li>
 * <li>{@code redislock.renewals} counter — leases renewed by the watchdog;</li>
 * <li>{@code redislock.lost} counter — held locks found lost; tags {@code name},
 * {@code type}.</li>
 * </ul>
 * The {@code name} tag is the lock's declared name, never the per-call key, so the number
 * of meters stays bounded.
 *
 * @since 0.1.0
 */
public class RedisLockMetrics implements LockObserver {

	private final MeterRegistry registry;

	private final Counter renewals;

	public RedisLockMetrics(MeterRegistry registry) {
		this.registry = registry;
		this.renewals = Counter.builder("redislock.renewals")
			.description("Leases renewed by the watchdog")
			.register(registry);
	}

	/**
	 * Register the {@code redislock.active} gauge over the holds of this instance.
	 * @param activeHolds how many lock holds this instance has now
	 */
	public void bindActive(Supplier<Number> activeHolds) {
		Gauge.builder("redislock.active", activeHolds)
			.description("Locks held now by this instance")
			.register(this.registry);
	}

	@Override
	public void acquired(String metricName, LockKind kind, Duration waited) {
		acquireTimer(metricName, kind, "acquired").record(waited);
	}

	@Override
	public void notAcquired(String metricName, LockKind kind, Duration waited, boolean error) {
		acquireTimer(metricName, kind, error ? "error" : "timeout").record(waited);
	}

	@Override
	public void skipped(String metricName, LockKind kind, Duration waited) {
		acquireTimer(metricName, kind, "skipped").record(waited);
	}

	@Override
	public void released(String metricName, LockKind kind, Duration held) {
		Timer.builder("redislock.held")
			.description("How long locks were held")
			.tags("name", metricName, "type", kind.tag())
			.register(this.registry)
			.record(held);
	}

	@Override
	public void renewed(int count) {
		this.renewals.increment(count);
	}

	@Override
	public void lost(String metricName, LockKind kind) {
		Counter.builder("redislock.lost")
			.description("Held locks found lost")
			.tags("name", metricName, "type", kind.tag())
			.register(this.registry)
			.increment();
	}

	private Timer acquireTimer(String metricName, LockKind kind, String outcome) {
		return Timer.builder("redislock.acquire")
			.description("How long acquiring a lock took")
			.tags("name", metricName, "type", kind.tag(), "outcome", outcome)
			.register(this.registry);
	}

}
