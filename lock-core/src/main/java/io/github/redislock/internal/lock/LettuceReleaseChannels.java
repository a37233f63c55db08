package io.github.redislock.internal.lock;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.github.redislock.internal.OutageLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Release channels on one pub/sub connection of their own, opened from the Lettuce client
 * of the application's connection factory: one {@code SUBSCRIBE} per lock that this
 * instance waits for, and on a Redis Cluster a sharded {@code SSUBSCRIBE}, sent to the
 * node that holds the lock's slot (falling back to {@code SUBSCRIBE} on a server without
 * sharded pub/sub), so that no release message crosses the cluster bus.
 * <p>
 * Messages published while a subscription is not in place are lost, so every way a
 * subscription can go is an event here, followed by a wake-up of the lock's waiters
 * ({@code onGap}: they try again once) and, once the subscription is back, another one:
 * <ul>
 * <li>a reconnect (a connection cut by a proxy, a load balancer or
 * {@code client-output-buffer-limit}): Lettuce subscribes again by itself, and its
 * confirmation of a channel that was confirmed before is the event;</li>
 * <li>a slot that moves to another master, or a master that fails over: Redis drops the
 * slot's sharded subscribers (a {@code sunsubscribe} nobody asked for); the channel is
 * subscribed again where the slot now lives (Lettuce follows the redirect; the client's
 * view of the cluster is refreshed when that fails);</li>
 * <li>a reconnect on a Cluster: Lettuce subscribes again with one {@code SSUBSCRIBE} of
 * all the node's channels, which Redis refuses when they lie in different slots
 * ({@code CROSSSLOT}), so the reconnect of a node's connection (told by the client's
 * connection events) is the event, and each of the node's channels is subscribed again by
 * itself;</li>
 * <li>a connection that answers nothing (half-open behind a load balancer, a node killed
 * or hung): a {@code PING} every {@link #checkAll() check} finds it; the standalone
 * connection is replaced, a Cluster node's channels are subscribed again through a
 * refreshed view of the cluster.</li>
 * </ul>
 * There is never more than one connection: a waiter that comes while it reconnects
 * subscribes on it (the command waits for the reconnect), and only a connection closed
 * here is replaced.
 */
final class LettuceReleaseChannels implements ReleaseChannels {

	private static final Log logger = LogFactory.getLog(LettuceReleaseChannels.class);

	/**
	 * How long a PING or a subscription may take before the connection counts as lost.
	 */
	static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(2);

	/** The key of this connection's failures in the {@link OutageLog}. */
	static final String OUTAGE_KEY = "release-channel";

	/**
	 * How long after a subscription went the client's view of a cluster is refreshed on
	 * every check: while it settles after a failover or a slot move.
	 */
	private static final long SETTLING_NANOS = TimeUnit.SECONDS.toNanos(10);

	/**
	 * How long a disconnected connection is left to Lettuce's own reconnect (which
	 * subscribes again by itself) before it is replaced.
	 */
	private static final long RECONNECT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final LettuceConnectionFactory connectionFactory;

	private final Supplier<Executor> connecting;

	private final BiConsumer<String, String> onMessage;

	private final Consumer<String> onGap;

	/**
	 * The channels listened on, by name. Changed, and subscribed, under {@link #lock};
	 * read without it (a concurrent map), so not {@code @GuardedBy}.
	 */
	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	/** Guards {@link #connection}, {@link #closed} and the sending of subscriptions. */
	private final Object lock = new Object();

	@GuardedBy("lock")
	private @Nullable CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> connection;

	@GuardedBy("lock")
	private boolean closed;

	private volatile boolean sharded;

	/** Since when (nanoTime) a connection, or a Cluster node's, was seen disconnected. */
	private final Map<Object, Long> downSince = new ConcurrentHashMap<>();

	/** Told of every connection of the client that (re)connects. */
	private final RedisConnectionStateListener reconnects = new RedisConnectionStateListener() {

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
			reconnected(connection);
		}

	};

	/** The Cluster client {@link #reconnects} listens to, if any. */
	@GuardedBy("lock")
	private volatile @Nullable RedisClusterClient listenedClient;

	/**
	 * Failures to open the connection and connections replaced: one WARN when an outage
	 * starts, one INFO when a connection opens again.
	 */
	private final OutageLog outages;

	/** When a subscription went last (nanoTime). */
	private volatile long lastLossNanos = System.nanoTime() - SETTLING_NANOS;

	/**
	 * @param connectionFactory whose client opens the connection
	 * @param sharded whether to listen with {@code SSUBSCRIBE} (see {@link #sharded})
	 * @param connecting where the (blocking) connect runs, never on a caller's thread
	 * @param onMessage told each message's channel and body, on Lettuce's I/O thread
	 * @param onGap told a channel's name when messages on it may have been lost (its
	 * subscription went, or came back after going), on any thread
	 */
	LettuceReleaseChannels(LettuceConnectionFactory connectionFactory, boolean sharded, Supplier<Executor> connecting,
			BiConsumer<String, String> onMessage, Consumer<String> onGap) {
		this(connectionFactory, sharded, connecting, onMessage, onGap,
				new OutageLog(logger, "The lock release channel"));
	}

	/**
	 * @param outages told of failures to open the connection and of connections that open
	 */
	LettuceReleaseChannels(LettuceConnectionFactory connectionFactory, boolean sharded, Supplier<Executor> connecting,
			BiConsumer<String, String> onMessage, Consumer<String> onGap, OutageLog outages) {
		this.outages = outages;
		this.connectionFactory = connectionFactory;
		this.sharded = sharded;
		this.connecting = connecting;
		this.onMessage = onMessage;
		this.onGap = onGap;
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
	public CompletableFuture<Void> listen(String name) {
		Channel channel;
		synchronized (this.lock) {
			if (this.closed) {
				return CompletableFuture.failedFuture(new IllegalStateException("Lock template closed"));
			}
			channel = this.channels.get(name);
			if (channel != null && !channel.subscribed.isCompletedExceptionally()) {
				return channel.subscribed;
			}
			channel = new Channel(name);
			this.channels.put(name, channel);
		}
		subscribe(channel);
		return channel.subscribed;
	}

	@Override
	public void stop(String name) {
		Channel channel;
		synchronized (this.lock) {
			channel = this.channels.remove(name);
		}
		if (channel == null) {
			return;
		}
		// After its subscription was sent (the connection may still be opening), and only
		// when nobody asked for the channel again meanwhile.
		channel.subscribed.whenComplete((done, ex) -> {
			synchronized (this.lock) {
				CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current = this.connection;
				if (this.channels.containsKey(name) || current == null || !current.isDone()
						|| current.isCompletedExceptionally()) {
					return;
				}
				StatefulRedisPubSubConnection<byte[], byte[]> connection = current.join();
				if (this.sharded) {
					connection.async().sunsubscribe(channel.bytes);
				}
				else {
					connection.async().unsubscribe(channel.bytes);
				}
			}
		});
	}

	/**
	 * Subscribe a channel on the connection (opening it first if need be), unless it is
	 * no longer listened on by then.
	 */
	private void subscribe(Channel channel) {
		if (!channel.sending.compareAndSet(false, true)) {
			return;
		}
		connection().thenCompose((connection) -> {
			synchronized (this.lock) {
				if (this.channels.get(channel.name) != channel) {
					return CompletableFuture.<Void>completedFuture(null);
				}
				return subscribe(connection, channel.bytes);
			}
		}).whenComplete((done, ex) -> {
			channel.sending.set(false);
			if (ex == null) {
				channel.subscribed.complete(null);
				return;
			}
			Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
			if (!channel.subscribed.completeExceptionally(cause)) {
				logger.debug("Could not subscribe again to " + channel.name + "; retrying: " + cause);
			}
		});
	}

	private CompletableFuture<Void> subscribe(StatefulRedisPubSubConnection<byte[], byte[]> connection, byte[] name) {
		if (!this.sharded) {
			return AsyncTimeouts.within(connection.async().subscribe(name).toCompletableFuture(), ANSWER_TIMEOUT,
					() -> new TimeoutException("SUBSCRIBE not answered within " + ANSWER_TIMEOUT));
		}
		CompletableFuture<Void> sent = connection.async()
			.ssubscribe(name)
			.toCompletableFuture()
			.exceptionallyCompose((failure) -> {
				Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
				if (cause instanceof RedisCommandExecutionException ex
						&& String.valueOf(ex.getMessage()).toLowerCase(Locale.ROOT).contains("unknown command")) {
					// Redis before 7: the release scripts publish classic messages there.
					this.sharded = false;
					return connection.async().subscribe(name).toCompletableFuture();
				}
				return CompletableFuture.failedFuture(cause);
			});
		return AsyncTimeouts.within(sent, ANSWER_TIMEOUT,
				() -> new TimeoutException("SSUBSCRIBE not answered within " + ANSWER_TIMEOUT));
	}

	/**
	 * Redis confirmed a subscription: the first one of a channel, or one that came back
	 * (Lettuce subscribes again after a reconnect; a lost one was sent again), which
	 * messages may have been missed before.
	 */
	private void confirmed(byte[] name, @Nullable RedisClusterNode node) {
		Channel channel = this.channels.get(new String(name, StandardCharsets.UTF_8));
		if (channel == null) {
			return;
		}
		channel.node = (node != null) ? node.getUri() : null;
		// A first subscription that failed (its waiters went on without it) counts as
		// one that came back.
		boolean again = channel.everConfirmed || channel.subscribed.isCompletedExceptionally();
		channel.everConfirmed = true;
		channel.confirmed = true;
		if (again) {
			this.onGap.accept(channel.name);
		}
	}

	/**
	 * Redis ended a subscription: our own {@code stop} (the channel is no longer listened
	 * on), or the server's when the slot left the node (a slot move, a failover): then it
	 * is subscribed again where the slot now lives.
	 */
	private void dropped(byte[] name) {
		Channel channel = this.channels.get(new String(name, StandardCharsets.UTF_8));
		if (channel == null || !channel.confirmed) {
			return;
		}
		lost(List.of(channel), true);
	}

	/**
	 * The subscriptions of these channels are gone or in doubt: their waiters try again
	 * now, and the channels are subscribed again (after the client's view of the cluster
	 * was refreshed, when asked).
	 */
	private void lost(List<Channel> lost, boolean refreshTopology) {
		this.lastLossNanos = System.nanoTime();
		for (Channel channel : lost) {
			channel.confirmed = false;
			this.onGap.accept(channel.name);
		}
		CompletableFuture<?> ready = refreshTopology ? refreshTopology() : CompletableFuture.completedFuture(null);
		ready.whenComplete((done, ex) -> lost.forEach(this::subscribe));
	}

	/**
	 * A connection of the client connected: when it is our connection to a Cluster node
	 * that holds some of our channels, it came back from a cut, and Lettuce's own
	 * subscription of them may have failed ({@code CROSSSLOT}): they are subscribed again
	 * one by one (off Lettuce's I/O thread), and their waiters try again.
	 */
	private void reconnected(RedisChannelHandler<?, ?> handler) {
		if (!(handler instanceof StatefulRedisPubSubConnection<?, ?>)
				|| !(currentConnection() instanceof StatefulRedisClusterPubSubConnection<byte[], byte[]> cluster)) {
			return;
		}
		Map<RedisURI, List<Channel>> byNode = confirmedByNode();
		List<Channel> lost = new ArrayList<>();
		byNode.forEach((node, onNode) -> {
			CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> nodeConnection;
			try {
				nodeConnection = cluster.getConnectionAsync(node.getHost(), node.getPort());
			}
			catch (RuntimeException ex) {
				return;
			}
			if (nodeConnection.isDone() && !nodeConnection.isCompletedExceptionally()
					&& nodeConnection.join() == handler) {
				lost.addAll(onNode);
			}
		});
		if (!lost.isEmpty()) {
			try {
				this.connecting.get().execute(() -> lost(lost, false));
			}
			catch (RuntimeException ex) {
				// Closing: nothing to subscribe again.
			}
		}
	}

	/**
	 * Return the confirmed sharded subscriptions by the Cluster node that confirmed them.
	 */
	private Map<RedisURI, List<Channel>> confirmedByNode() {
		Map<RedisURI, List<Channel>> byNode = new HashMap<>();
		for (Channel channel : this.channels.values()) {
			RedisURI node = channel.node;
			if (channel.confirmed && node != null) {
				byNode.computeIfAbsent(node, (key) -> new ArrayList<>()).add(channel);
			}
		}
		return byNode;
	}

	/**
	 * Look after the subscriptions (called every second or so, while channels are
	 * listened on): a connection that does not answer a {@code PING} in time is taken for
	 * lost, and channels not subscribed now are subscribed again. Never blocks.
	 */
	@Override
	public void checkAll() {
		if (this.channels.isEmpty()) {
			if (this.outages.isFailing(OUTAGE_KEY)) {
				// Nobody waits now: open the connection anyway to learn when Redis is
				// back.
				connection();
			}
			return;
		}
		CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current;
		synchronized (this.lock) {
			current = this.connection;
		}
		if (current == null || current.isCompletedExceptionally()) {
			// Never opened, or the last attempt failed: try again.
			this.channels.values().stream().filter((channel) -> !channel.confirmed).forEach(this::subscribe);
			return;
		}
		if (!current.isDone()) {
			return;
		}
		StatefulRedisPubSubConnection<byte[], byte[]> connection = current.join();
		List<Channel> unconfirmed = this.channels.values()
			.stream()
			.filter((channel) -> !channel.confirmed && !channel.sending.get())
			.toList();
		if (connection instanceof StatefulRedisClusterPubSubConnection<byte[], byte[]> cluster && this.sharded) {
			checkNodes(cluster);
			if (!unconfirmed.isEmpty() || System.nanoTime() - this.lastLossNanos < SETTLING_NANOS) {
				// The last attempt failed, or a subscription went a moment ago: the
				// client's view of the cluster may be stale (a replica took over, a slot
				// moved), and a subscription made through it may sit on a node that no
				// longer serves the slot (a replica accepts it, and may never get the
				// messages): look again, and move what is in the wrong place.
				refreshTopology().whenComplete((done, ex) -> {
					unconfirmed.forEach(this::subscribe);
					List<Channel> misplaced = misplaced();
					if (!misplaced.isEmpty()) {
						lost(misplaced, false);
					}
				});
			}
			return;
		}
		checkConnection(connection);
		unconfirmed.forEach(this::subscribe);
	}

	/**
	 * Return the confirmed sharded subscriptions that sit on another node than the one
	 * that serves their slot, as the client sees the cluster now.
	 */
	private List<Channel> misplaced() {
		if (!(this.connectionFactory.getNativeClient() instanceof RedisClusterClient cluster)) {
			return List.of();
		}
		List<Channel> misplaced = new ArrayList<>();
		for (Channel channel : this.channels.values()) {
			RedisURI node = channel.node;
			if (!channel.confirmed || node == null) {
				continue;
			}
			RedisClusterNode owner = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(channel.bytes));
			if (owner == null || owner.getUri() == null || !owner.getUri().getHost().equals(node.getHost())
					|| owner.getUri().getPort() != node.getPort()) {
				misplaced.add(channel);
			}
		}
		return misplaced;
	}

	private CompletableFuture<?> refreshTopology() {
		if (this.connectionFactory.getNativeClient() instanceof RedisClusterClient cluster) {
			return cluster.refreshPartitionsAsync().toCompletableFuture();
		}
		return CompletableFuture.completedFuture(null);
	}

	private void checkConnection(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
		if (stillDown(connection, connection)) {
			return;
		}
		ping(connection).whenComplete((pong, ex) -> {
			if (ex != null) {
				replace(connection, ex);
			}
		});
	}

	/**
	 * Whether a connection (or a Cluster node's) is disconnected now: Lettuce reconnects
	 * it by itself, but after connections were cut again and again its reconnects come
	 * ever later (exponential backoff), so one that was already seen disconnected
	 * {@link #RECONNECT_GRACE_NANOS} ago is replaced at once: a new connection has no
	 * backoff.
	 * @param key what the connection is known by (itself, or a Cluster node)
	 * @param connection the connection, or the Cluster node's (then the whole Cluster
	 * connection is replaced)
	 */
	private boolean stillDown(Object key, StatefulRedisPubSubConnection<byte[], byte[]> connection) {
		StatefulRedisPubSubConnection<byte[], byte[]> whole = currentConnection();
		if (connection.isOpen() || whole == null) {
			this.downSince.remove(key);
			return false;
		}
		long now = System.nanoTime();
		long since = this.downSince.computeIfAbsent(key, (down) -> now);
		if (now - since >= RECONNECT_GRACE_NANOS) {
			this.downSince.clear();
			replace(whole, new IllegalStateException("disconnected for " + TimeUnit.NANOSECONDS.toMillis(now - since)
					+ " ms and not reconnected by itself"));
		}
		return true;
	}

	private @Nullable StatefulRedisPubSubConnection<byte[], byte[]> currentConnection() {
		CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current;
		synchronized (this.lock) {
			current = this.connection;
		}
		return (current != null && current.isDone() && !current.isCompletedExceptionally()) ? current.join() : null;
	}

	/**
	 * The connection did not answer: close it and listen on a new one.
	 */
	private void replace(StatefulRedisPubSubConnection<byte[], byte[]> connection, Throwable why) {
		List<Channel> lost;
		synchronized (this.lock) {
			CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current = this.connection;
			if (this.closed || current == null || !current.isDone() || current.isCompletedExceptionally()
					|| current.join() != connection) {
				return;
			}
			this.connection = null;
			lost = new ArrayList<>(this.channels.values());
		}
		this.outages.failed(OUTAGE_KEY, "the connection for lock release messages did not answer a PING within "
				+ ANSWER_TIMEOUT + ", or stayed disconnected (listening on a new one)", why);
		closeQuietly(connection);
		lost(lost, connection instanceof StatefulRedisClusterPubSubConnection);
	}

	/**
	 * Ping every node that holds one of our sharded subscriptions; a node that does not
	 * answer loses its channels, which are subscribed again where the cluster now says
	 * their slots live.
	 */
	private void checkNodes(StatefulRedisClusterPubSubConnection<byte[], byte[]> cluster) {
		Map<RedisURI, List<Channel>> byNode = confirmedByNode();
		byNode.forEach((node, onNode) -> {
			CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> nodeConnection;
			try {
				nodeConnection = cluster.getConnectionAsync(node.getHost(), node.getPort());
			}
			catch (RuntimeException ex) {
				nodeConnection = CompletableFuture.failedFuture(ex);
			}
			nodeConnection
				.thenCompose((connection) -> stillDown(node, connection)
						? CompletableFuture.completedFuture("still reconnecting") : ping(connection))
				.whenComplete((pong, ex) -> {
					if (ex != null) {
						logger.debug("Cluster node " + node + " did not answer a PING within " + ANSWER_TIMEOUT
								+ "; subscribing its " + onNode.size() + " lock release channel(s) again: " + ex);
						lost(onNode.stream().filter((channel) -> channel.confirmed).toList(), true);
					}
				});
		});
	}

	/**
	 * Ping a connection. One that is reconnecting answers once it is back (the PING waits
	 * for the reconnect, as the subscriptions do), so only a connection that stays away,
	 * or never answers, misses the deadline.
	 */
	private CompletableFuture<String> ping(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
		return AsyncTimeouts.within(connection.async().ping().toCompletableFuture(), ANSWER_TIMEOUT,
				() -> new TimeoutException("PING not answered within " + ANSWER_TIMEOUT));
	}

	/**
	 * Return the connection, opening it when there is none: never a second one while one
	 * is open or reconnecting.
	 */
	private CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> connection() {
		synchronized (this.lock) {
			if (this.closed) {
				return CompletableFuture.failedFuture(new IllegalStateException("Lock template closed"));
			}
			CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current = this.connection;
			if (current != null && !current.isCompletedExceptionally()) {
				return current;
			}
			CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> next = new CompletableFuture<>();
			this.connection = next;
			next.whenComplete((connection, ex) -> {
				Throwable cause = (ex instanceof CompletionException) ? ex.getCause() : ex;
				if (ex != null && !(cause instanceof UnsupportedClientException)) {
					connectFailed((cause != null) ? cause : ex);
				}
				if (connection != null) {
					this.outages.succeeded(OUTAGE_KEY);
					synchronized (this.lock) {
						if (!this.closed && this.connection == next) {
							return;
						}
					}
					// Closed (or replaced) while it was being opened.
					closeQuietly(connection);
				}
			});
			try {
				this.connecting.get().execute(() -> {
					try {
						next.complete(connect());
					}
					catch (RuntimeException ex) {
						next.completeExceptionally(ex);
					}
				});
			}
			catch (RuntimeException ex) {
				next.completeExceptionally(ex);
			}
			return next;
		}
	}

	/**
	 * The connection could not be opened: an outage, unless this instance was closed
	 * meanwhile. Closing it gives a connect under way up (the template's shutdown stops
	 * the threads that connect, interrupting it), which says nothing about Redis.
	 */
	private void connectFailed(Throwable failure) {
		boolean closed;
		synchronized (this.lock) {
			closed = this.closed;
		}
		if (closed) {
			if (logger.isDebugEnabled()) {
				logger.debug("Gave up opening the lock release connection: the lock template closed (" + failure + ")");
			}
			return;
		}
		this.outages.failed(OUTAGE_KEY,
				"could not open the pub/sub connection for lock release messages (until a later attempt succeeds,"
						+ " waiting threads retry when the holder's lease runs out)",
				failure);
	}

	private StatefulRedisPubSubConnection<byte[], byte[]> connect() {
		AbstractRedisClient client = this.connectionFactory.getRequiredNativeClient();
		if (client instanceof RedisClusterClient clusterClient) {
			synchronized (this.lock) {
				// (A connect queued before close() must not leave the listener behind.)
				if (this.closed) {
					throw new IllegalStateException("Lock template closed");
				}
				if (this.listenedClient != clusterClient) {
					clusterClient.addListener(this.reconnects);
					this.listenedClient = clusterClient;
				}
			}
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

				@Override
				public void subscribed(RedisClusterNode node, byte[] channel, long count) {
					confirmed(channel, null);
				}

				@Override
				public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
					confirmed(channel, node);
				}

				@Override
				public void unsubscribed(RedisClusterNode node, byte[] channel, long count) {
					dropped(channel);
				}

				@Override
				public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
					dropped(channel);
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

				@Override
				public void subscribed(byte[] channel, long count) {
					confirmed(channel, null);
				}

				@Override
				public void ssubscribed(byte[] channel, long count) {
					confirmed(channel, null);
				}

				@Override
				public void unsubscribed(byte[] channel, long count) {
					dropped(channel);
				}

				@Override
				public void sunsubscribed(byte[] channel, long count) {
					dropped(channel);
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
	public String state() {
		CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current;
		synchronized (this.lock) {
			current = this.connection;
		}
		if (current == null) {
			// Replaced (a new one opens with the next subscription), or never needed.
			return this.channels.isEmpty() ? "idle" : "disconnected";
		}
		if (!current.isDone()) {
			return "connecting";
		}
		if (current.isCompletedExceptionally()) {
			return "disconnected";
		}
		return current.join().isOpen() ? "connected" : "disconnected";
	}

	@Override
	public void disconnect() {
		CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> current;
		synchronized (this.lock) {
			current = this.connection;
			this.connection = null;
			this.channels.clear();
			this.downSince.clear();
		}
		if (current != null) {
			// Also one still being opened, once it is open.
			current.thenAccept(LettuceReleaseChannels::closeQuietly);
		}
	}

	private static void closeQuietly(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
		try {
			connection.closeAsync();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not close the lock release connection", ex);
		}
	}

	@Override
	public void close() {
		RedisClusterClient client;
		synchronized (this.lock) {
			this.closed = true;
			client = this.listenedClient;
			this.listenedClient = null;
		}
		if (client != null) {
			client.removeListener(this.reconnects);
		}
		disconnect();
	}

	/**
	 * One channel listened on.
	 */
	private static final class Channel {

		private final String name;

		private final byte[] bytes;

		/** Completes once Redis first confirmed the subscription, or failed to. */
		private final CompletableFuture<Void> subscribed = new CompletableFuture<>();

		/** Whether a subscription is on its way (none is sent twice at once). */
		private final AtomicBoolean sending = new AtomicBoolean();

		/** Whether Redis confirmed it and nothing since suggests it went. */
		private volatile boolean confirmed;

		/** Whether it was confirmed before (a confirmation then follows a gap). */
		private volatile boolean everConfirmed;

		/** The Cluster node that confirmed it (sharded), else {@code null}. */
		private volatile @Nullable RedisURI node;

		Channel(String name) {
			this.name = name;
			this.bytes = name.getBytes(StandardCharsets.UTF_8);
		}

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
