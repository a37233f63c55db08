package io.github.redislock.internal.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import io.github.redislock.internal.OutageLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * Wakes the threads of this instance that wait for a lock when it is released.
 * <p>
 * Every lock has a release channel of its own ({@link LockKeys#releaseChannel}), and this
 * instance listens on a lock's channel only while one of its threads waits for that lock:
 * the first waiter subscribes (and waits for Redis to confirm it before its next
 * attempt); once the last one left, the subscription lingers for a moment
 * ({@link #LINGER_NANOS}: a lock taken in turns does not subscribe and unsubscribe on
 * every turn, and a waiter that got the lock returns without telling Redis) and then
 * goes. So an instance receives the release messages of the locks it waits for (or waited
 * for a moment ago), not those of every lock in the fleet. A release by this instance
 * wakes its own waiters directly; the message (releasing instance id, lock key) wakes the
 * others. A release message wakes only the longest waiting thread of this instance for
 * that lock, so a crowd of waiters does not rush Redis for one released lock; the others
 * stay parked until the next release. A waiter that leaves without using its wake-up
 * hands it to the next one.
 */
final class ReleaseSignals implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ReleaseSignals.class);

	/** How long a release channel is still listened on after its last waiter left. */
	static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ConcurrentHashMap<String, Waiters> waiters = new ConcurrentHashMap<>();

	/**
	 * Locks (signal keys) whose release or undo by this instance failed but may run
	 * later, until when (nanoTime) that can happen: this instance's own messages about
	 * them wake its waiters too.
	 */
	private final ConcurrentHashMap<String, Long> unsettled = new ConcurrentHashMap<>();

	private final LockKeys keys;

	private final String instanceId;

	private final LongAdder received = new LongAdder();

	private volatile ReleaseChannels channels;

	private final @Nullable ReleaseChannels fallback;

	private final ScheduledFuture<?> sweep;

	/** Raised by {@link #unsubscribe()}: queues of an earlier generation listen again. */
	private final AtomicInteger generation = new AtomicInteger();

	/**
	 * @param connectionFactory the application's connection factory
	 * @param keys where the release channels are
	 * @param instanceId this instance's id, first part of every release message it sends
	 * @param executor where blocking connects and subscriptions run
	 * @param sweeper where idle subscriptions are dropped ({@link #stopIdle()}, which
	 * sends without waiting for an answer)
	 * @param outages told of failures to listen and of their end
	 */
	ReleaseSignals(RedisConnectionFactory connectionFactory, LockKeys keys, String instanceId,
			Supplier<Executor> executor, TaskScheduler sweeper, OutageLog outages) {
		this.keys = keys;
		this.instanceId = instanceId;
		PatternReleaseChannels patterns = new PatternReleaseChannels(connectionFactory, keys.releaseChannelPattern(),
				executor, this::onMessage, outages);
		if (LockCommands.LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce) {
			this.channels = new LettuceReleaseChannels(lettuce, LettuceReleaseChannels.sharded(lettuce), executor,
					this::onMessage, this::onGap, outages);
			this.fallback = patterns;
		}
		else {
			this.channels = patterns;
			this.fallback = null;
		}
		Duration period = Duration.ofNanos(LINGER_NANOS);
		this.sweep = sweeper.scheduleAtFixedRate(this::stopIdle, Instant.now().plus(period), period);
	}

	/**
	 * Stop listening on the release channels that nobody here has waited on for
	 * {@link #LINGER_NANOS}.
	 */
	void stopIdle() {
		long now = System.nanoTime();
		this.unsettled.values().removeIf((until) -> until - now < 0);
		try {
			this.channels.checkAll();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not check the release subscriptions", ex);
		}
		for (String lockKey : this.waiters.keySet()) {
			this.waiters.computeIfPresent(lockKey, (key, queue) -> {
				if (!queue.isEmpty() || now - queue.idleSince < LINGER_NANOS) {
					return queue;
				}
				if (queue.generation == this.generation.get()) {
					this.channels.stop(queue.channel);
				}
				return null;
			});
		}
	}

	/**
	 * Return whether the release scripts of locks on this factory publish sharded
	 * messages (when the server has sharded pub/sub): on a Redis Cluster reached through
	 * Lettuce, whose waiters listen with {@code SSUBSCRIBE}.
	 */
	static boolean sharded(RedisConnectionFactory connectionFactory) {
		return LockCommands.LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce
				&& LettuceReleaseChannels.sharded(lettuce);
	}

	/**
	 * Register the calling thread as a waiter for the lock; its
	 * {@link Waiter#subscribed()} completes once this instance listens on the lock's
	 * release channel.
	 */
	Waiter register(String lockKey) {
		Waiter waiter = new Waiter();
		int generation = this.generation.get();
		this.waiters.compute(lockKey, (key, queue) -> {
			Waiters result = queue;
			if (result == null || result.generation != generation) {
				Waiters listening = new Waiters(this.keys.releaseChannel(key), generation);
				if (result != null) {
					listening.addAll(result);
				}
				listening.subscribed = listen(listening.channel);
				result = listening;
			}
			else if (result.subscribed.isCompletedExceptionally()) {
				// The subscription failed (Redis unreachable): try again.
				result.subscribed = listen(result.channel);
			}
			result.addLast(waiter);
			waiter.subscribed = result.subscribed;
			return result;
		});
		return waiter;
	}

	private CompletableFuture<Void> listen(String channel) {
		ReleaseChannels channels = this.channels;
		CompletableFuture<Void> subscribed = channels.listen(channel);
		ReleaseChannels fallback = this.fallback;
		if (fallback == null || channels == fallback) {
			return subscribed;
		}
		return subscribed.exceptionallyCompose((failure) -> {
			Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
			if (cause instanceof LettuceReleaseChannels.UnsupportedClientException) {
				// A client without a Redis URI of its own (static master/replica).
				logger.debug("Lock release messages through a listener container: " + cause.getMessage());
				this.channels = fallback;
				return fallback.listen(channel);
			}
			return CompletableFuture.failedFuture(cause);
		});
	}

	/**
	 * Return how the connection that receives release messages is doing (see
	 * {@link ReleaseChannels#state()}).
	 */
	String channelState() {
		return this.channels.state();
	}

	void unregister(String lockKey, Waiter waiter, boolean acquired) {
		this.waiters.computeIfPresent(lockKey, (key, queue) -> {
			queue.remove(waiter);
			if (!acquired && waiter.permit.tryAcquire()) {
				// We were woken but leave without the lock: the wake-up belongs to the
				// next.
				wake(queue.peekFirst());
			}
			if (queue.isEmpty()) {
				// Nobody here waits for this lock any more: its releases stop being heard
				// once the subscription lingered (stopIdle).
				queue.idleSince = System.nanoTime();
			}
			return queue;
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

	/**
	 * Return how many threads of this instance wait for a lock now.
	 */
	int waiterCount() {
		int count = 0;
		for (Deque<Waiter> queue : this.waiters.values()) {
			count += queue.size();
		}
		return count;
	}

	/**
	 * Return how many locks this instance listens for now: those it waits for, and those
	 * whose last waiter left less than {@link #LINGER_NANOS} ago.
	 */
	int listeningCount() {
		return this.waiters.size();
	}

	/**
	 * Return how many release messages this instance received so far.
	 */
	long receivedCount() {
		return this.received.sum();
	}

	/**
	 * Return the message that announces the release of a lock by this instance.
	 */
	String releaseMessage(String lockKey) {
		return this.instanceId + " " + lockKey;
	}

	private void onMessage(String channel, String message) {
		this.received.increment();
		int space = message.indexOf(' ');
		if (space <= 0) {
			return;
		}
		String lockKey = message.substring(space + 1);
		// Our own releases woke our waiters directly, unless they failed (timed out) and
		// ran later.
		if (!message.regionMatches(0, this.instanceId, 0, space) || this.unsettled.containsKey(lockKey)) {
			signal(lockKey);
		}
	}

	/**
	 * Release messages on a channel may have been lost (its subscription went, or came
	 * back after going): the longest waiting thread of this instance for the lock tries
	 * again now, as after a message.
	 */
	private void onGap(String channel) {
		signal(this.keys.signalKeyOf(channel));
	}

	/**
	 * A release or undo of a lock by this instance failed and may still run within
	 * {@code leaseMillis}: until then, this instance's own release messages of the lock
	 * wake its waiters.
	 */
	void unsettled(String lockKey, long leaseMillis) {
		this.unsettled.put(lockKey, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
	}

	/**
	 * The failed releases of a lock by this instance are settled (sent again and
	 * answered).
	 */
	void settled(String lockKey) {
		this.unsettled.remove(lockKey);
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
	 * Close the pub/sub connection (the template stops); the next thread that has to wait
	 * opens a new one. Threads that wait still (a stop while requests are in flight) keep
	 * hearing releases: their locks are listened on again at once, on a new connection,
	 * and they are woken to try again, now and once listening (a release may have come
	 * between).
	 */
	void unsubscribe() {
		int generation = this.generation.incrementAndGet();
		this.channels.disconnect();
		List<String> stillWaited = new ArrayList<>();
		for (String lockKey : this.waiters.keySet()) {
			this.waiters.computeIfPresent(lockKey, (key, queue) -> {
				if (queue.isEmpty()) {
					return null;
				}
				Waiters listening = new Waiters(queue.channel, generation);
				listening.addAll(queue);
				listening.subscribed = listen(listening.channel);
				stillWaited.add(key);
				return listening;
			});
		}
		for (String lockKey : stillWaited) {
			signal(lockKey);
			Waiters queue = this.waiters.get(lockKey);
			if (queue != null) {
				queue.subscribed.whenComplete((subscribed, ex) -> signal(lockKey));
			}
		}
	}

	@Override
	public void close() {
		this.sweep.cancel(false);
		this.channels.close();
		if (this.fallback != null) {
			this.fallback.close();
		}
	}

	/**
	 * The waiters of this instance for one lock, longest waiting first, and this
	 * instance's subscription to the lock's release channel.
	 */
	private static final class Waiters extends ConcurrentLinkedDeque<Waiter> {

		private final String channel;

		private final int generation;

		private CompletableFuture<Void> subscribed = CompletableFuture.completedFuture(null);

		/** When the last waiter left (written under the map's lock for this key). */
		private long idleSince;

		Waiters(String channel, int generation) {
			this.channel = channel;
			this.generation = generation;
		}

	}

	/**
	 * One waiting thread. Parks on a semaphore, so a waiting virtual thread does not pin
	 * its carrier.
	 */
	static final class Waiter {

		private final Semaphore permit = new Semaphore(0);

		private volatile CompletableFuture<Void> subscribed = CompletableFuture.completedFuture(null);

		/** What an asynchronous waiter waits on, while it waits. */
		private volatile @Nullable CompletableFuture<@Nullable Void> next;

		/**
		 * Return a future that completes when this instance listens on the lock's release
		 * channel, or failed when it could not subscribe (then waits end no later than
		 * the holder's lease).
		 */
		CompletableFuture<Void> subscribed() {
			return this.subscribed;
		}

		/**
		 * Wait until this instance listens on the lock's release channel, Redis refused,
		 * or the timeout passed.
		 */
		void awaitSubscribed(long nanos) throws InterruptedException {
			try {
				this.subscribed.get(nanos, TimeUnit.NANOSECONDS);
			}
			catch (ExecutionException | TimeoutException ex) {
				logger.debug("Waiting without a release subscription: " + ex);
			}
		}

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
