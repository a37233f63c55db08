package io.github.redislock.internal.lock;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.redislock.internal.OutageLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Release channels for connection factories other than Lettuce's (Jedis), through Spring
 * Data Redis' listener container: one pattern subscription to every lock's release
 * channel, opened when a thread of this instance first has to wait. Such an instance
 * receives the release messages of all locks; the Lettuce path subscribes per lock.
 */
final class PatternReleaseChannels implements ReleaseChannels {

	private static final Log logger = LogFactory.getLog(PatternReleaseChannels.class);

	private static final long SUBSCRIBE_RETRY_NANOS = TimeUnit.SECONDS.toNanos(10);

	/** How long a subscription that lost its connection waits before it is made again. */
	private static final long RECOVERY_PAUSE_MILLIS = 5000;

	private final RedisConnectionFactory connectionFactory;

	private final String pattern;

	private final Supplier<Executor> subscribing;

	private final BiConsumer<String, String> onMessage;

	/** Guards {@link #container}, {@link #failedAt} and {@link #closed}. */
	private final Object lock = new Object();

	@GuardedBy("lock")
	private @Nullable CompletableFuture<RedisMessageListenerContainer> container;

	@GuardedBy("lock")
	private long failedAt;

	@GuardedBy("lock")
	private boolean closed;

	/**
	 * Failed subscriptions: one WARN when an outage starts, one INFO when one succeeds.
	 */
	private final OutageLog outages;

	/**
	 * @param pattern the pattern that matches every release channel
	 * @param subscribing where the (blocking) subscription is made
	 * @param outages told of failed and successful subscriptions
	 */
	PatternReleaseChannels(RedisConnectionFactory connectionFactory, String pattern, Supplier<Executor> subscribing,
			BiConsumer<String, String> onMessage, OutageLog outages) {
		this.outages = outages;
		this.connectionFactory = connectionFactory;
		this.pattern = pattern;
		this.subscribing = subscribing;
		this.onMessage = onMessage;
	}

	@Override
	public CompletableFuture<Void> listen(String channel) {
		synchronized (this.lock) {
			if (this.closed) {
				return CompletableFuture.failedFuture(new IllegalStateException("Lock template closed"));
			}
			CompletableFuture<RedisMessageListenerContainer> current = this.container;
			boolean retry = current != null && current.isCompletedExceptionally()
					&& System.nanoTime() - this.failedAt >= SUBSCRIBE_RETRY_NANOS;
			if (current == null || retry) {
				current = CompletableFuture.supplyAsync(this::subscribe, this.subscribing.get());
				current.whenComplete((container, ex) -> {
					if (ex != null) {
						synchronized (this.lock) {
							this.failedAt = System.nanoTime();
						}
					}
				});
				this.container = current;
			}
			return current.thenApply((container) -> null);
		}
	}

	private RedisMessageListenerContainer subscribe() {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(this.connectionFactory);
		// The listener only wakes waiters: run it on the connection's thread.
		container.setTaskExecutor(new SyncTaskExecutor());
		// The subscription itself not so: a client whose subscription blocks its thread
		// for as long as it lasts (Jedis) would never let the start return, and waiters
		// would wait out their wait time instead of being woken.
		container.setSubscriptionExecutor(this.subscribing.get());
		// A subscription that lost its connection (a client that does not reconnect by
		// itself: Jedis) is made again after a pause, as the container does by default,
		// but only while it is still this instance's: the pause is taken here, so that a
		// stop or close meanwhile is seen after it (the container, waiting on its own,
		// subscribed again for nobody).
		container.setRecoveryBackoff(() -> () -> {
			if (!isCurrent(container)) {
				return BackOffExecution.STOP;
			}
			try {
				Thread.sleep(RECOVERY_PAUSE_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return BackOffExecution.STOP;
			}
			return isCurrent(container) ? 0 : BackOffExecution.STOP;
		});
		container.addMessageListener(
				(message, pattern) -> this.onMessage.accept(new String(message.getChannel(), StandardCharsets.UTF_8),
						new String(message.getBody(), StandardCharsets.UTF_8)),
				new PatternTopic(this.pattern));
		container.afterPropertiesSet();
		try {
			container.start();
			this.outages.succeeded(LettuceReleaseChannels.OUTAGE_KEY);
			return container;
		}
		catch (RuntimeException ex) {
			subscribeFailed(ex);
			try {
				container.destroy();
			}
			catch (Exception destroyFailure) {
				ex.addSuppressed(destroyFailure);
			}
			throw ex;
		}
	}

	/**
	 * Whether {@code container} is this instance's subscription, made and not given up.
	 */
	private boolean isCurrent(RedisMessageListenerContainer container) {
		synchronized (this.lock) {
			CompletableFuture<RedisMessageListenerContainer> current = this.container;
			return !this.closed && current != null && current.isDone() && !current.isCompletedExceptionally()
					&& current.join() == container;
		}
	}

	/**
	 * The subscription failed: an outage, unless this instance was closed meanwhile (the
	 * template's shutdown stops the thread that subscribes), which says nothing about
	 * Redis.
	 */
	private void subscribeFailed(RuntimeException failure) {
		boolean closed;
		synchronized (this.lock) {
			closed = this.closed;
		}
		if (closed) {
			if (logger.isDebugEnabled()) {
				logger.debug(
						"Gave up subscribing to the lock release channels: the lock template closed (" + failure + ")");
			}
			return;
		}
		this.outages.failed(LettuceReleaseChannels.OUTAGE_KEY,
				"could not subscribe to lock release channels '" + this.pattern
						+ "' (until a later attempt succeeds, waiting threads retry when the holder's lease runs out)",
				failure);
	}

	@Override
	public String state() {
		CompletableFuture<RedisMessageListenerContainer> current;
		synchronized (this.lock) {
			current = this.container;
		}
		if (current == null) {
			return "idle";
		}
		if (!current.isDone()) {
			return "connecting";
		}
		if (current.isCompletedExceptionally()) {
			return "disconnected";
		}
		RedisMessageListenerContainer container = current.join();
		return (container.isRunning() && container.isListening()) ? "connected" : "disconnected";
	}

	@Override
	public void stop(String channel) {
		// One subscription for all channels, kept until disconnected.
	}

	@Override
	public void disconnect() {
		CompletableFuture<RedisMessageListenerContainer> current;
		synchronized (this.lock) {
			current = this.container;
			this.container = null;
		}
		if (current != null) {
			current.thenAccept((container) -> {
				try {
					container.destroy();
				}
				catch (Exception ex) {
					logger.debug("Could not close the lock release subscription", ex);
				}
			});
		}
	}

	@Override
	public void close() {
		synchronized (this.lock) {
			this.closed = true;
		}
		disconnect();
	}

}
