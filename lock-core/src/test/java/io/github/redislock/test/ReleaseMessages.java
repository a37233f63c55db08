package io.github.redislock.test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Listens on one channel and keeps what arrives: a lock's release channel as the
 * starter's waiters do ({@code SSUBSCRIBE} on a Redis Cluster, {@code SUBSCRIBE} on one
 * server), or any channel with classic {@code SUBSCRIBE}.
 */
public final class ReleaseMessages implements AutoCloseable {

	private final List<String> messages = new CopyOnWriteArrayList<>();

	private final StatefulRedisPubSubConnection<byte[], byte[]> connection;

	private ReleaseMessages(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
		this.connection = connection;
	}

	/**
	 * Subscribe to {@code channel} through the client of {@code connectionFactory} and
	 * return once Redis confirmed it.
	 */
	public static ReleaseMessages listen(LettuceConnectionFactory connectionFactory, String channel) throws Exception {
		return listen(connectionFactory, channel, true);
	}

	/**
	 * Subscribe to {@code channel} with classic {@code SUBSCRIBE}, also on a Redis
	 * Cluster, and return once Redis confirmed it.
	 */
	public static ReleaseMessages listenClassic(LettuceConnectionFactory connectionFactory, String channel)
			throws Exception {
		return listen(connectionFactory, channel, false);
	}

	private static ReleaseMessages listen(LettuceConnectionFactory connectionFactory, String channel, boolean sharded)
			throws Exception {
		byte[] name = channel.getBytes(StandardCharsets.UTF_8);
		if (connectionFactory.getRequiredNativeClient() instanceof RedisClusterClient cluster) {
			StatefulRedisClusterPubSubConnection<byte[], byte[]> connection = cluster
				.connectPubSub(ByteArrayCodec.INSTANCE);
			ReleaseMessages messages = new ReleaseMessages(connection);
			connection.setNodeMessagePropagation(true);
			connection.addListener(new RedisClusterPubSubAdapter<>() {

				@Override
				public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
					messages.add(message);
				}

				@Override
				public void message(RedisClusterNode node, byte[] channel, byte[] message) {
					messages.add(message);
				}

			});
			if (sharded) {
				connection.async().ssubscribe(name).get(10, TimeUnit.SECONDS);
			}
			else {
				connection.async().subscribe(name).get(10, TimeUnit.SECONDS);
			}
			return messages;
		}
		StatefulRedisPubSubConnection<byte[], byte[]> connection = ((RedisClient) connectionFactory
			.getRequiredNativeClient()).connectPubSub(ByteArrayCodec.INSTANCE);
		ReleaseMessages messages = new ReleaseMessages(connection);
		connection.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(byte[] channel, byte[] message) {
				messages.add(message);
			}

		});
		connection.async().subscribe(name).get(10, TimeUnit.SECONDS);
		return messages;
	}

	private void add(byte[] message) {
		this.messages.add(new String(message, StandardCharsets.UTF_8));
	}

	/**
	 * Return the messages received so far, oldest first.
	 */
	public List<String> messages() {
		return this.messages;
	}

	/**
	 * Forget the messages received so far.
	 */
	public void clear() {
		this.messages.clear();
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
