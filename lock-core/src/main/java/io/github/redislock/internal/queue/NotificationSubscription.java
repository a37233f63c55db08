package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One subscription of the task queue's workers to their channels, made once and closed
 * once; a subscription given up is never used again.
 * <p>
 * On Lettuce it is a pub/sub connection of the instance's own, opened from the native
 * client, never one of the connection factory's: a pooling factory (commons-pool2 on the
 * class path) hands the pub/sub connection of a subscription closed by Spring Data's
 * container back to its pool, so a connection found deaf (half-open behind a load
 * balancer) would be borrowed again by the next subscription, whose SUBSCRIBE then waits
 * for the command timeout and hears nothing. Closing it closes the socket at once.
 * Lettuce reconnects it and subscribes again by itself after a connection loss (or, with
 * auto-reconnect off, reports it lost). Other clients (Jedis; Lettuce without a Redis URI
 * of its own) use Spring Data's container.
 */
interface NotificationSubscription {

	/**
	 * How long a new subscription may take, from opening its connection to its
	 * confirmation, before it is given up.
	 */
	Duration SUBSCRIBE_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * Whether the subscription lost its connection for good: a loss reported to
	 * {@link Listener#lost} before its owner knew the subscription was missed (checked
	 * once it does).
	 */
	default boolean isLost() {
		return false;
	}

	/**
	 * Close the subscription: it hears nothing from now on. The container's may wait for
	 * Redis to answer its unsubscribe: call it where waiting does no harm.
	 */
	void close();

	/**
	 * What a subscription tells its owner, on the client's thread.
	 */
	interface Listener {

		/**
		 * A message arrived on one of the channels.
		 */
		void message(String channel, byte[] body);

		/**
		 * A channel's subscription was confirmed (also again after a reconnect).
		 */
		void subscribed(String channel);

		/**
		 * The subscription lost its connection and will not make it again by itself.
		 */
		void lost(NotificationSubscription subscription);

	}

	/**
	 * Subscribe to {@code channels}, waiting for the subscription to be confirmed.
	 * @param listeningThreads where a client whose subscription blocks its thread (Jedis)
	 * listens, and where a Lettuce pub/sub connection is opened (its connect blocks)
	 * @param givenUp the last Lettuce connect given up at {@link #SUBSCRIBE_TIMEOUT},
	 * kept here while it runs: no other starts until it ended
	 * @throws RuntimeException when the subscription could not be made
	 */
	static NotificationSubscription open(RedisConnectionFactory connectionFactory, List<String> channels,
			Listener listener, Executor listeningThreads, AtomicReference<@Nullable CompletableFuture<?>> givenUp) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			NotificationSubscription subscription = LettuceNotificationSubscription.open(lettuce, channels, listener,
					listeningThreads, givenUp);
			if (subscription != null) {
				return subscription;
			}
		}
		return ContainerNotificationSubscription.open(connectionFactory, channels, listener, listeningThreads);
	}

}
