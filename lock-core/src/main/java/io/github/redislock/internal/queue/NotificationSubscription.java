package io.github.redislock.internal.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.BackOffExecution;

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
 * Lettuce reconnects it and subscribes again by itself after a connection loss. Other
 * clients (Jedis; Lettuce without a Redis URI of its own) use Spring Data's container.
 */
interface NotificationSubscription {

	/** How long a new subscription may take to be confirmed before it is given up. */
	Duration SUBSCRIBE_TIMEOUT = Duration.ofSeconds(10);

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
	 * listens
	 * @throws RuntimeException when the subscription could not be made
	 */
	static NotificationSubscription open(RedisConnectionFactory connectionFactory, List<String> channels,
			Listener listener, Executor listeningThreads) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			NotificationSubscription subscription = LettuceSubscription.open(lettuce, channels, listener);
			if (subscription != null) {
				return subscription;
			}
		}
		return ContainerSubscription.open(connectionFactory, channels, listener, listeningThreads);
	}

	/**
	 * A subscription on a pub/sub connection of its own from Lettuce's native client.
	 */
	final class LettuceSubscription implements NotificationSubscription {

		private final StatefulRedisPubSubConnection<byte[], byte[]> connection;

		private LettuceSubscription(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
			this.connection = connection;
		}

		/**
		 * Return the subscription, or {@code null} when the client has no Redis URI of
		 * its own to connect to (Spring Data's static master/replica setup).
		 */
		static @Nullable NotificationSubscription open(LettuceConnectionFactory factory, List<String> channels,
				Listener listener) {
			AbstractRedisClient client = factory.getRequiredNativeClient();
			StatefulRedisPubSubConnection<byte[], byte[]> connection;
			try {
				if (client instanceof RedisClusterClient cluster) {
					// Classic PUBLISH reaches every node: the default node's connection
					// hears it.
					connection = cluster.connectPubSub(ByteArrayCodec.INSTANCE);
				}
				else if (client instanceof RedisClient redis) {
					connection = redis.connectPubSub(ByteArrayCodec.INSTANCE);
				}
				else {
					return null;
				}
			}
			catch (IllegalStateException | IllegalArgumentException ex) {
				// No Redis URI of its own.
				return null;
			}
			catch (RuntimeException ex) {
				throw new RedisSystemException("Could not open a pub/sub connection: " + ex.getMessage(), ex);
			}
			LettuceSubscription subscription = new LettuceSubscription(connection);
			connection.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(byte[] channel, byte[] message) {
					listener.message(new String(channel, StandardCharsets.UTF_8), message);
				}

				@Override
				public void subscribed(byte[] channel, long count) {
					listener.subscribed(new String(channel, StandardCharsets.UTF_8));
				}

			});
			byte[][] names = channels.stream()
				.map((name) -> name.getBytes(StandardCharsets.UTF_8))
				.toArray(byte[][]::new);
			try {
				connection.async()
					.subscribe(names)
					.toCompletableFuture()
					.get(SUBSCRIBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
				return subscription;
			}
			catch (InterruptedException ex) {
				subscription.close();
				Thread.currentThread().interrupt();
				throw new RedisSystemException("Interrupted while subscribing", ex);
			}
			catch (ExecutionException ex) {
				subscription.close();
				Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
				throw new RedisSystemException("Could not subscribe: " + cause.getMessage(), cause);
			}
			catch (TimeoutException ex) {
				subscription.close();
				throw new RedisSystemException("SUBSCRIBE was not confirmed within " + SUBSCRIBE_TIMEOUT, ex);
			}
			catch (RuntimeException ex) {
				subscription.close();
				throw ex;
			}
		}

		@Override
		public void close() {
			this.connection.closeAsync();
		}

	}

	/**
	 * A subscription made by Spring Data's container.
	 */
	final class ContainerSubscription implements NotificationSubscription {

		private final RedisMessageListenerContainer container;

		private ContainerSubscription(RedisMessageListenerContainer container) {
			this.container = container;
		}

		static NotificationSubscription open(RedisConnectionFactory connectionFactory, List<String> channels,
				Listener listener, Executor listeningThreads) {
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			ContainerSubscription subscription = new ContainerSubscription(container);
			container.setConnectionFactory(connectionFactory);
			container.setTaskExecutor(new SyncTaskExecutor());
			// Not the synchronous one: a client whose subscription blocks its thread
			// (Jedis) would block the start, which waits for the subscription, for good.
			container.setSubscriptionExecutor(listeningThreads);
			// A first subscription that fails is not retried by the container (it would
			// retry forever on the calling thread): the caller asks again. Nor is one
			// that was made and then lost its connection (a client that does not
			// reconnect by itself: Jedis): it is given up.
			container.setRecoveryBackoff(() -> () -> {
				listener.lost(subscription);
				return BackOffExecution.STOP;
			});
			container.addMessageListener(new Adapter(listener), channels.stream().map(ChannelTopic::new).toList());
			container.afterPropertiesSet();
			try {
				container.start();
				return subscription;
			}
			catch (RuntimeException ex) {
				try {
					container.destroy();
				}
				catch (Exception closing) {
					ex.addSuppressed(closing);
				}
				throw ex;
			}
		}

		/**
		 * Closes by unsubscribing: a connection found deaf is released when that is
		 * answered or when TCP gives it up (on Jedis its listening thread ends then too),
		 * not at once. Call it where waiting does no harm.
		 */
		@Override
		public void close() {
			try {
				this.container.destroy();
			}
			catch (Exception ex) {
				// Closing anyway.
			}
		}

		private record Adapter(Listener listener) implements MessageListener, SubscriptionListener {

			@Override
			public void onMessage(Message message, byte @Nullable [] pattern) {
				this.listener.message(new String(message.getChannel(), StandardCharsets.UTF_8), message.getBody());
			}

			@Override
			public void onChannelSubscribed(byte[] channel, long count) {
				this.listener.subscribed(new String(channel, StandardCharsets.UTF_8));
			}

		}

	}

}
