package io.github.redislock.internal.lock;

import java.util.concurrent.CompletableFuture;

/**
 * How an instance listens for the release messages of the locks its threads wait for: one
 * channel per lock, subscribed while this instance has a waiter for it.
 */
interface ReleaseChannels extends AutoCloseable {

	/**
	 * Start listening on a lock's release channel.
	 * @param channel the channel
	 * @return a future that completes once Redis confirmed the subscription, so that a
	 * release published afterwards reaches this instance; it fails when Redis could not
	 * be asked (waiters then wait no longer than the holder's lease)
	 */
	CompletableFuture<Void> listen(String channel);

	/**
	 * Stop listening on a lock's release channel. Calls for one channel come in the order
	 * of the {@link #listen} calls they follow.
	 * @param channel the channel
	 */
	void stop(String channel);

	/**
	 * Look after the subscriptions, about once a second while channels are listened on:
	 * find connections that no longer answer and subscriptions that went, and make them
	 * again. Must not block.
	 */
	default void checkAll() {
	}

	/**
	 * Return how the connection that receives the release messages is doing: {@code idle}
	 * (none opened: no thread of this instance has waited for a lock yet),
	 * {@code connecting}, {@code connected} or {@code disconnected} (lost, failed to
	 * open, or being replaced).
	 * @return the state
	 */
	String state();

	/**
	 * Close every subscription and the connection; a later {@link #listen} opens a new
	 * one.
	 */
	void disconnect();

	@Override
	void close();

}
