package io.github.redislock.internal.lock;

import java.nio.charset.StandardCharsets;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Wakes the threads of this instance that wait for a lock when it is released.
 * <p>
 * All locks share one Redis channel and this instance listens on one pub/sub connection,
 * opened when a thread first has to wait. A release by this instance wakes its own
 * waiters directly; the message (releasing instance id, space, lock key) wakes the
 * others. A release message wakes only the longest waiting thread of this instance for
 * that lock, so a crowd of waiters does not rush Redis for one released lock; the others
 * stay parked until the next release. A waiter that leaves without using its wake-up
 * hands it to the next one.
 */
final class ReleaseSignals implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ReleaseSignals.class);

	private static final long SUBSCRIBE_RETRY_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final ConcurrentHashMap<String, Deque<Waiter>> waiters = new ConcurrentHashMap<>();

	private final RedisConnectionFactory connectionFactory;

	private final String channel;

	private final ReentrantLock subscribeLock = new ReentrantLock();

	private volatile @Nullable RedisMessageListenerContainer container;

	/** Guards {@link #subscribing}. */
	private final Object subscribingLock = new Object();

	/** The subscription under way for asynchronous waiters, if any. */
	private @Nullable CompletableFuture<Void> subscribing;

	private volatile boolean closed;

	private volatile long retryAfterNanos = System.nanoTime();

	private final String instanceId;

	ReleaseSignals(RedisConnectionFactory connectionFactory, String channel, String instanceId) {
		this.connectionFactory = connectionFactory;
		this.channel = channel;
		this.instanceId = instanceId;
	}

	/**
	 * Register the calling thread as a waiter for the lock; subscribes first if this
	 * instance does not listen yet.
	 */
	Waiter register(String lockKey) {
		ensureSubscribed();
		Waiter waiter = new Waiter();
		this.waiters.compute(lockKey, (key, queue) -> {
			Deque<Waiter> result = (queue != null) ? queue : new ConcurrentLinkedDeque<>();
			result.addLast(waiter);
			return result;
		});
		return waiter;
	}

	void unregister(String lockKey, Waiter waiter, boolean acquired) {
		this.waiters.computeIfPresent(lockKey, (key, queue) -> {
			queue.remove(waiter);
			if (!acquired && waiter.permit.tryAcquire()) {
				// We were woken but leave without the lock: the wake-up belongs to the
				// next.
				wake(queue.peekFirst());
			}
			return queue.isEmpty() ? null : queue;
		});
	}

	/**
	 * Wake the longest waiting thread of this instance for the lock, if any.
	 */
	void signal(String lockKey) {
		Deque<Waiter> queue = this.waiters.get(lockKey);
		if (queue != null) {
			wake(queue.peekFirst());
		}
	}

	/**
	 * Wake the waiter of this instance that waits for the lock right after
	 * {@code waiter}, if any.
	 */
	void signalNext(String lockKey, Waiter waiter) {
		Deque<Waiter> queue = this.waiters.get(lockKey);
		if (queue == null) {
			return;
		}
		boolean found = false;
		for (Waiter candidate : queue) {
			if (found) {
				wake(candidate);
				return;
			}
			found = (candidate == waiter);
		}
	}

	int waiterCount() {
		int count = 0;
		for (Deque<Waiter> queue : this.waiters.values()) {
			count += queue.size();
		}
		return count;
	}

	/**
	 * Return the message that announces the release of a lock by this instance.
	 */
	String releaseMessage(String lockKey) {
		return this.instanceId + " " + lockKey;
	}

	private void onMessage(String message) {
		int space = message.indexOf(' ');
		// Our own releases already woke our waiters directly.
		if (space > 0 && !message.regionMatches(0, this.instanceId, 0, space)) {
			signal(message.substring(space + 1));
		}
	}

	boolean hasWaiters(String lockKey, @Nullable Waiter except) {
		Deque<Waiter> queue = this.waiters.get(lockKey);
		if (queue == null) {
			return false;
		}
		for (Waiter waiter : queue) {
			if (waiter != except) {
				return true;
			}
		}
		return false;
	}

	private static void wake(@Nullable Waiter waiter) {
		if (waiter != null) {
			if (waiter.permit.availablePermits() == 0) {
				waiter.permit.release();
			}
			CompletableFuture<@Nullable Void> next = waiter.next;
			if (next != null) {
				next.complete(null);
			}
		}
	}

	/**
	 * Return whether {@link #register} would return at once: this instance listens
	 * already (or will not try to subscribe now), so registering cannot wait for Redis.
	 */
	boolean registersWithoutWaiting() {
		return this.container != null || this.closed || System.nanoTime() - this.retryAfterNanos < 0;
	}

	/**
	 * Return a future that completes once {@link #register} would return at once. Many
	 * asynchronous waiters that arrive before this instance listens share one
	 * subscription, made on one thread of {@code executor}, instead of each taking a
	 * thread to wait for it.
	 * @param executor where the subscription is made
	 * @return the future
	 */
	CompletableFuture<Void> subscribedAsync(Executor executor) {
		if (registersWithoutWaiting()) {
			return CompletableFuture.completedFuture(null);
		}
		synchronized (this.subscribingLock) {
			CompletableFuture<Void> current = this.subscribing;
			if (current == null || current.isDone()) {
				current = CompletableFuture.runAsync(this::ensureSubscribed, executor);
				this.subscribing = current;
			}
			return current;
		}
	}

	private void ensureSubscribed() {
		if (this.container != null || this.closed || System.nanoTime() - this.retryAfterNanos < 0) {
			return;
		}
		this.subscribeLock.lock();
		try {
			if (this.container == null && !this.closed && System.nanoTime() - this.retryAfterNanos >= 0) {
				this.container = subscribe();
				if (this.container == null) {
					this.retryAfterNanos = System.nanoTime() + SUBSCRIBE_RETRY_NANOS;
				}
			}
		}
		finally {
			this.subscribeLock.unlock();
		}
	}

	private @Nullable RedisMessageListenerContainer subscribe() {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(this.connectionFactory);
		// The listener only releases a semaphore: run it on the connection's thread.
		container.setTaskExecutor(new SyncTaskExecutor());
		container.addMessageListener(
				(message, pattern) -> onMessage(new String(message.getBody(), StandardCharsets.UTF_8)),
				new ChannelTopic(this.channel));
		container.afterPropertiesSet();
		try {
			container.start();
			return container;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not subscribe to lock release channel '" + this.channel
					+ "'; until a later attempt succeeds, waiting threads retry when the holder's lease runs out", ex);
			try {
				container.destroy();
			}
			catch (Exception destroyFailure) {
				ex.addSuppressed(destroyFailure);
			}
			return null;
		}
	}

	/**
	 * Close the subscription; the next thread that has to wait opens a new one.
	 */
	void unsubscribe() {
		this.subscribeLock.lock();
		try {
			RedisMessageListenerContainer container = this.container;
			this.container = null;
			if (container != null) {
				container.destroy();
			}
		}
		catch (Exception ex) {
			logger.debug("Could not close the lock release subscription", ex);
		}
		finally {
			this.subscribeLock.unlock();
		}
	}

	@Override
	public void close() {
		this.closed = true;
		unsubscribe();
	}

	/**
	 * One waiting thread. Parks on a semaphore, so a waiting virtual thread does not pin
	 * its carrier.
	 */
	static final class Waiter {

		private final Semaphore permit = new Semaphore(0);

		/** What an asynchronous waiter waits on, while it waits. */
		private volatile @Nullable CompletableFuture<@Nullable Void> next;

		/**
		 * Wait until woken or the timeout passes.
		 */
		void await(long nanos) throws InterruptedException {
			this.permit.tryAcquire(nanos, TimeUnit.NANOSECONDS);
		}

		/**
		 * Wait without a thread: the returned future completes when this waiter is woken
		 * (using the wake-up, as {@link #await} does) or the timeout passes.
		 */
		CompletableFuture<@Nullable Void> next(long nanos) {
			if (this.permit.tryAcquire()) {
				return CompletableFuture.completedFuture(null);
			}
			CompletableFuture<@Nullable Void> next = new CompletableFuture<>();
			this.next = next;
			// A wake-up between the first look and the registration.
			if (this.permit.tryAcquire()) {
				this.next = null;
				return CompletableFuture.completedFuture(null);
			}
			AsyncTimeouts.completeAfter(next, nanos);
			return next.whenComplete((result, ex) -> {
				this.next = null;
				this.permit.tryAcquire();
			});
		}

	}

}
