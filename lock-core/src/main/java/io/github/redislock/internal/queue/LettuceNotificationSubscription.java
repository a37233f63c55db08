package io.github.redislock.internal.queue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A subscription on a pub/sub connection of its own, opened from Lettuce's native client
 * (so that closing it closes the socket, and no pool lends it again). Opening the
 * connection and confirming the SUBSCRIBE share one bound,
 * {@link NotificationSubscription#SUBSCRIBE_TIMEOUT}: a connection whose handshake is
 * never answered (a half-open path) would otherwise hold the subscription for the
 * client's command timeout. A connect given up at that bound still runs until Lettuce
 * gives its handshake up (the command timeout; the connection is closed if it opens
 * meanwhile), and no other connect starts until it ended: one connect at a time, however
 * often the workers try again.
 */
final class LettuceNotificationSubscription implements NotificationSubscription {

	private final AbstractRedisClient client;

	private final StatefulRedisPubSubConnection<byte[], byte[]> connection;

	/**
	 * Reports the connection lost when the client does not reconnect it by itself
	 * (auto-reconnect off); {@code null} when it does.
	 */
	private final @Nullable RedisConnectionStateListener disconnects;

	private volatile boolean closed;

	private LettuceNotificationSubscription(AbstractRedisClient client,
			StatefulRedisPubSubConnection<byte[], byte[]> connection, Listener listener) {
		this.client = client;
		this.connection = connection;
		if (client.getOptions().isAutoReconnect()) {
			this.disconnects = null;
		}
		else {
			this.disconnects = new RedisConnectionStateListener() {

				@Override
				public void onRedisDisconnected(RedisChannelHandler<?, ?> disconnected) {
					if (disconnected == connection && !LettuceNotificationSubscription.this.closed) {
						listener.lost(LettuceNotificationSubscription.this);
					}
				}

			};
			client.addListener(this.disconnects);
		}
	}

	/**
	 * Return the subscription, or {@code null} when the client has no Redis URI of its
	 * own to connect to (Spring Data's static master/replica setup).
	 * @param connecting where the connection is opened (Lettuce's connect blocks)
	 * @param givenUp the last connect given up at the bound, kept here while it runs
	 * @throws RuntimeException when the subscription could not be made in time
	 */
	static @Nullable NotificationSubscription open(LettuceConnectionFactory factory, List<String> channels,
			Listener listener, Executor connecting, AtomicReference<@Nullable CompletableFuture<?>> givenUp) {
		AbstractRedisClient client = factory.getRequiredNativeClient();
		if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
			return null;
		}
		CompletableFuture<?> stillOpening = givenUp.get();
		if (stillOpening != null && !stillOpening.isDone()) {
			throw new RedisSystemException("A pub/sub connection given up after " + SUBSCRIBE_TIMEOUT
					+ " is still being opened (until the client's command timeout)", null);
		}
		long deadline = System.nanoTime() + SUBSCRIBE_TIMEOUT.toNanos();
		CompletableFuture<@Nullable StatefulRedisPubSubConnection<byte[], byte[]>> opening = CompletableFuture
			.supplyAsync(() -> connect(client), connecting);
		StatefulRedisPubSubConnection<byte[], byte[]> connection;
		try {
			connection = opening.get(remaining(deadline), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			givenUp.set(opening);
			closeWhenOpen(opening);
			Thread.currentThread().interrupt();
			throw new RedisSystemException("Interrupted while opening a pub/sub connection", ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new RedisSystemException("Could not open a pub/sub connection: " + cause.getMessage(), cause);
		}
		catch (TimeoutException ex) {
			givenUp.set(opening);
			closeWhenOpen(opening);
			throw new RedisSystemException("No pub/sub connection opened within " + SUBSCRIBE_TIMEOUT, ex);
		}
		if (connection == null) {
			return null;
		}
		LettuceNotificationSubscription subscription = new LettuceNotificationSubscription(client, connection,
				listener);
		try {
			connection.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(byte[] channel, byte[] message) {
					if (!subscription.closed) {
						listener.message(new String(channel, StandardCharsets.UTF_8), message);
					}
				}

				@Override
				public void subscribed(byte[] channel, long count) {
					if (!subscription.closed) {
						listener.subscribed(new String(channel, StandardCharsets.UTF_8));
					}
				}

			});
			byte[][] names = channels.stream()
				.map((name) -> name.getBytes(StandardCharsets.UTF_8))
				.toArray(byte[][]::new);
			connection.async().subscribe(names).toCompletableFuture().get(remaining(deadline), TimeUnit.NANOSECONDS);
			if (!connection.isOpen()) {
				throw new RedisSystemException("The pub/sub connection closed as it subscribed", null);
			}
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

	private static @Nullable StatefulRedisPubSubConnection<byte[], byte[]> connect(AbstractRedisClient client) {
		try {
			if (client instanceof RedisClusterClient cluster) {
				// Classic PUBLISH reaches every node: the default node's connection hears
				// it.
				return cluster.connectPubSub(ByteArrayCodec.INSTANCE);
			}
			return ((RedisClient) client).connectPubSub(ByteArrayCodec.INSTANCE);
		}
		catch (IllegalStateException | IllegalArgumentException ex) {
			// No Redis URI of its own.
			return null;
		}
	}

	/**
	 * A connection that opens after its wait was given up is closed then.
	 */
	private static void closeWhenOpen(
			CompletableFuture<@Nullable StatefulRedisPubSubConnection<byte[], byte[]>> opening) {
		opening.thenAccept((late) -> {
			if (late != null) {
				late.closeAsync();
			}
		});
	}

	private static long remaining(long deadline) {
		return Math.max(0, deadline - System.nanoTime());
	}

	@Override
	public boolean isLost() {
		return this.disconnects != null && !this.closed && !this.connection.isOpen();
	}

	@Override
	public void close() {
		this.closed = true;
		RedisConnectionStateListener disconnects = this.disconnects;
		if (disconnects != null) {
			this.client.removeListener(disconnects);
		}
		this.connection.closeAsync();
	}

}
