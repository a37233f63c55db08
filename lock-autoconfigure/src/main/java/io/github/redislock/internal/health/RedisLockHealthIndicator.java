package io.github.redislock.internal.health;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.EngineThreads;
import io.github.redislock.internal.queue.QueueDepths;
import io.github.redislock.internal.queue.RedisTaskQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The {@code redislock} health indicator: whether Redis answers a {@code PING} on the
 * connection the lock engine uses, how the pub/sub connection that hears lock releases is
 * doing ({@code releaseChannel}), and each queue this instance handles (paused, depths,
 * lag) as details.
 * <p>
 * DOWN, with the failure as {@code error}, when Redis cannot be reached or does not
 * answer within the timeout; a paused queue, a backlog, or a release channel that
 * reconnects is no reason for DOWN (they are details an operator reads). The check runs
 * on a thread of its own, and the health endpoint waits for it at most the timeout: while
 * a check is still under way (a Redis that hangs), later requests wait for that one
 * instead of starting another, so a hung Redis never piles up threads.
 *
 * @since 0.1.0
 */
public final class RedisLockHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

	private final DefaultRedisLockTemplate template;

	private final @Nullable RedisTaskQueue queue;

	private final Supplier<Collection<String>> queueNames;

	private final Duration timeout;

	private final ThreadPoolTaskExecutor checks = EngineThreads.serial("redislock-health");

	private final AtomicReference<@Nullable CompletableFuture<Map<String, Object>>> underWay = new AtomicReference<>();

	/**
	 * @param template the lock engine whose connection is checked
	 * @param queue the task queue, if there is one
	 * @param queueNames the queues this instance handles
	 * @param timeout how long to wait for Redis
	 */
	public RedisLockHealthIndicator(DefaultRedisLockTemplate template, @Nullable RedisTaskQueue queue,
			Supplier<Collection<String>> queueNames, Duration timeout) {
		super("Redis lock health check failed");
		this.template = template;
		this.queue = queue;
		this.queueNames = queueNames;
		this.timeout = timeout;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws Exception {
		builder.withDetail("releaseChannel", this.template.releaseChannelState());
		Map<String, Object> queues;
		try {
			queues = check().get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			builder.down().withDetail("error", "Redis did not answer within " + this.timeout);
			return;
		}
		catch (ExecutionException ex) {
			// The failure as a detail, not as the builder's exception: Spring Boot logs a
			// WARN with its stack trace for every check that has one, and an outage is
			// logged once, by the parts that keep calling Redis.
			Throwable failure = (ex.getCause() != null) ? ex.getCause() : ex;
			builder.down().withDetail("error", failure.getClass().getName() + ": " + failure.getMessage());
			return;
		}
		builder.up();
		if (this.queue != null) {
			builder.withDetail("queues", queues);
		}
	}

	/**
	 * Return the check under way, or start one.
	 */
	private CompletableFuture<Map<String, Object>> check() {
		CompletableFuture<Map<String, Object>> current = this.underWay.get();
		if (current != null && !current.isDone()) {
			return current;
		}
		CompletableFuture<Map<String, Object>> next = new CompletableFuture<>();
		if (!this.underWay.compareAndSet(current, next)) {
			CompletableFuture<Map<String, Object>> other = this.underWay.get();
			return (other != null) ? other : next;
		}
		try {
			this.checks.execute(() -> {
				try {
					next.complete(queueDetails());
				}
				catch (Throwable ex) {
					next.completeExceptionally(ex);
				}
			});
		}
		catch (RuntimeException ex) {
			next.completeExceptionally(ex);
		}
		return next;
	}

	/**
	 * Ping Redis, then read the depths of each queue: the details of a healthy Redis.
	 */
	private Map<String, Object> queueDetails() throws Throwable {
		try {
			this.template.ping(this.timeout).get();
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() != null) ? ex.getCause() : ex;
		}
		Map<String, Object> details = new TreeMap<>();
		RedisTaskQueue queue = this.queue;
		if (queue != null) {
			for (String name : this.queueNames.get()) {
				details.put(name, describe(queue.depths(name)));
			}
		}
		return details;
	}

	private static Map<String, Object> describe(QueueDepths depths) {
		Map<String, Object> queue = new LinkedHashMap<>();
		queue.put("paused", depths.paused());
		queue.put("ready", depths.ready());
		queue.put("delayed", depths.delayed());
		queue.put("inflight", depths.inflight());
		queue.put("dead", depths.dead());
		queue.put("lagMillis", depths.lagMillis());
		return queue;
	}

	@Override
	public void destroy() {
		this.checks.shutdown();
	}

}
