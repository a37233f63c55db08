package io.github.redislock.internal.lock;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Release channels on a pub/sub connection of their own, opened from the Lettuce client
 * of the application's connection factory: one {@code SUBSCRIBE} per lock that this
 * instance waits for, and on a Redis Cluster a sharded {@code SSUBSCRIBE}, sent to the
 * node that holds the lock's slot (falling back to {@code SUBSCRIBE} on a server without
 * sharded pub/sub), so that no release message crosses the cluster bus. Lettuce
 * subscribes again after a reconnect; messages published while the connection was down
 * are lost, and waiters then wait no longer than the holder's lease.
 */
final class LettuceReleaseChannels implements ReleaseChannels {

	private static final Log logger = LogFactory.getLog(LettuceReleaseChannels.class);

	private static final long CONNECT_RETRY_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final LettuceConnectionFactory connectionFactory;

	private final Supplier<Executor> connecting;

	private final BiConsumer<String, String> onMessage;

	/** Guards {@link #connection}, {@link #failedAt}. */
	private final Object lock = new Object();

	private @Nullable CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> connection;

	private long failedAt;

	private boolean failed;

	private volatile boolean sharded;

	private volatile boolean closed;

	/**
	 * @param connectionFactory whose client opens the connection
	 * @param sharded whether to listen with {@code SSUBSCRIBE} (see {@link #sharded})
	 * @param connecting where the (blocking) connect runs, never on a caller's thread
	 * @param onMessage told each message's channel and body, on Lettuce's I/O thread
	 */
	LettuceReleaseChannels(LettuceConnectionFactory connectionFactory, boolean sharded, Supplier<Executor> connecting,
			BiConsumer<String, String> onMessage) {
		this.connectionFactory = connectionFactory;
		this.sharded = sharded;
		this.connecting = connecting;
		this.onMessage = onMessage;
	}

	/**
	 * Return whether releases are published and listened to as sharded messages: on a
	 * Redis Cluster, unless its servers lack sharded pub/sub (then the release scripts
	 * publish classic messages too: they check the server's version).
	 */
	static boolean sharded(LettuceConnectionFactory connectionFactory) {
		return connectionFactory.isClusterAware();
	}

	@Override
	public CompletableFuture<Void> listen(String channel) {
		return connection().thenCompose((connection) -> subscribe(connection, channel));
	}

	private CompletableFuture<Void> subscribe(StatefulRedisPubSubConnection<byte[], byte[]> connection,
			String channel) {
		byte[] name = channel.getBytes(StandardCharsets.UTF_8);
		if (!this.sharded) {
			return connection.async().subscribe(name).toCompletableFuture();
		}
		return connection.async().ssubscribe(name).toCompletableFuture().exceptionallyCompose((failure) -> {
			Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
			if (cause instanceof RedisCommandExecutionException ex
					&& String.valueOf(ex.getMessage()).toLowerCase(Locale.ROOT).contains("unknown command")) {
				// Redis before 7: the release scripts publish classic messages there.
				this.sharded = false;
				return connection.async().subscribe(name).toCompletableFuture();
			}
			return CompletableFuture.failedFuture(cause);
		});
	}

	@Override
	public void stop(String channel) {
		CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current;
		synchronized (this.lock) {
			current = this.connection;
		}
		if (current == null || !current.isDone() || current.isCompletedExceptionally()) {
			return;
		}
		StatefulRedisPubSubConnection<byte[], byte[]> connection = current.join();
		byte[] name = channel.getBytes(StandardCharsets.UTF_8);
		if (this.sharded) {
			connection.async().sunsubscribe(name);
		}
		else {
			connection.async().unsubscribe(name);
		}
	}

	private CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> connection() {
		synchronized (this.lock) {
			if (this.closed) {
				return CompletableFuture.failedFuture(new IllegalStateException("Lock template closed"));
			}
			CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current = this.connection;
			if (current != null
					&& (!current.isDone() || (!current.isCompletedExceptionally() && current.join().isOpen()))) {
				return current;
			}
			if (current != null && this.failed && System.nanoTime() - this.failedAt < CONNECT_RETRY_NANOS) {
				return current;
			}
			CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> next = CompletableFuture
				.supplyAsync(this::connect, this.connecting.get());
			next.whenComplete((connection, ex) -> {
				Throwable cause = (ex instanceof CompletionException) ? ex.getCause() : ex;
				if (ex != null) {
					synchronized (this.lock) {
						this.failed = true;
						this.failedAt = System.nanoTime();
					}
				}
				if (ex != null && !(cause instanceof UnsupportedClientException)) {
					logger.warn("Could not open the pub/sub connection for lock release messages; until a later"
							+ " attempt succeeds, waiting threads retry when the holder's lease runs out", ex);
				}
			});
			this.failed = false;
			this.connection = next;
			return next;
		}
	}

	private StatefulRedisPubSubConnection<byte[], byte[]> connect() {
		AbstractRedisClient client = this.connectionFactory.getRequiredNativeClient();
		if (client instanceof RedisClusterClient clusterClient) {
			StatefulRedisClusterPubSubConnection<byte[], byte[]> connection = clusterClient
				.connectPubSub(ByteArrayCodec.INSTANCE);
			// Sharded subscriptions live on the connections to the slots' nodes.
			connection.setNodeMessagePropagation(true);
			connection.addListener(new RedisClusterPubSubAdapter<>() {

				@Override
				public void message(RedisClusterNode node, byte[] channel, byte[] message) {
					received(channel, message);
				}

				@Override
				public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
					received(channel, message);
				}

			});
			return connection;
		}
		if (client instanceof RedisClient redisClient) {
			StatefulRedisPubSubConnection<byte[], byte[]> connection;
			try {
				connection = redisClient.connectPubSub(ByteArrayCodec.INSTANCE);
			}
			catch (IllegalStateException | IllegalArgumentException ex) {
				// No Redis URI of its own (Spring Data's static master/replica setup).
				throw new UnsupportedClientException(ex);
			}
			connection.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(byte[] channel, byte[] message) {
					received(channel, message);
				}

				@Override
				public void smessage(byte[] channel, byte[] message) {
					received(channel, message);
				}

			});
			return connection;
		}
		throw new UnsupportedClientException(
				new IllegalStateException("Unsupported Lettuce client " + client.getClass().getName()));
	}

	private void received(byte[] channel, byte[] message) {
		this.onMessage.accept(new String(channel, StandardCharsets.UTF_8), new String(message, StandardCharsets.UTF_8));
	}

	@Override
	public void disconnect() {
		CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current;
		synchronized (this.lock) {
			current = this.connection;
			this.connection = null;
		}
		if (current != null) {
			current.thenAccept((connection) -> {
				try {
					connection.close();
				}
				catch (RuntimeException ex) {
					logger.debug("Could not close the lock release connection", ex);
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

	/**
	 * The client cannot open a pub/sub connection by itself; release messages then go
	 * through Spring Data Redis' listener container.
	 */
	static final class UnsupportedClientException extends RuntimeException {

		UnsupportedClientException(RuntimeException cause) {
			super("The Lettuce client cannot open a pub/sub connection of its own: " + cause.getMessage(), cause);
		}

	}

}
