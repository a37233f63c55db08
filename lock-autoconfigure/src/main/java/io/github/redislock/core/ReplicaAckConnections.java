package io.github.redislock.core;

import java.nio.charset.StandardCharsets;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Connections of their own for acquisitions that wait for replica acknowledgement.
 * {@code WAIT} blocks the connection it runs on for up to the acknowledgement timeout,
 * and must run on the connection that ran the acquire script (it counts that connection's
 * writes): on the application's shared connection it would hold up every other command of
 * the application. So each such acquisition borrows a connection from a small pool of
 * native Lettuce connections made by the factory's own client (same server, credentials
 * and TLS; the master as Sentinel reports it), runs the script and {@code WAIT} on it,
 * and gives it back.
 */
final class ReplicaAckConnections implements AutoCloseable {

	/** Idle connections kept; more are opened when more acquisitions wait at once. */
	static final int MAX_IDLE = 8;

	private final LettuceConnectionFactory connectionFactory;

	private final RedisClient client;

	private final Deque<StatefulRedisConnection<byte[], byte[]>> idle = new ConcurrentLinkedDeque<>();

	private volatile boolean closed;

	private ReplicaAckConnections(LettuceConnectionFactory connectionFactory, RedisClient client) {
		this.connectionFactory = connectionFactory;
		this.client = client;
	}

	/**
	 * Return the connections for a factory whose client is a standalone or Sentinel
	 * Lettuce client, else {@code null} (a Jedis factory's connections are not shared
	 * anyway).
	 */
	static @Nullable ReplicaAckConnections of(RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && !lettuce.isClusterAware()) {
			try {
				if (lettuce.getNativeClient() instanceof RedisClient client) {
					return new ReplicaAckConnections(lettuce, client);
				}
			}
			catch (IllegalStateException ex) {
				// Not started yet: acknowledgement then goes through the factory.
				return null;
			}
		}
		return null;
	}

	/**
	 * Run an acquire script, then, when it acquired, {@code WAIT} for {@code replicas},
	 * on one connection of this pool.
	 * @return the script's result and how many replicas confirmed (0 when not acquired)
	 */
	long[] acquireAndWait(RedisScript<Long> script, byte[][] keys, byte[][] args, int replicas, long timeoutMillis) {
		StatefulRedisConnection<byte[], byte[]> connection = borrow();
		boolean reusable = false;
		try {
			RedisAsyncCommands<byte[], byte[]> commands = connection.async();
			Long token;
			try {
				token = await(commands.evalsha(script.getSha1(), ScriptOutputType.INTEGER, keys, args), 0);
			}
			catch (RedisNoScriptException ex) {
				token = await(commands.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8),
						ScriptOutputType.INTEGER, keys, args), 0);
			}
			long result = (token != null) ? token : 0;
			long acked = 0;
			if (result > 0) {
				Long confirmed = await(commands.waitForReplication(replicas, timeoutMillis), timeoutMillis);
				acked = (confirmed != null) ? confirmed : 0;
			}
			reusable = true;
			return new long[] { result, acked };
		}
		catch (RuntimeException ex) {
			throw LettuceScripts.translate(ex);
		}
		finally {
			giveBack(connection, reusable);
		}
	}

	private StatefulRedisConnection<byte[], byte[]> borrow() {
		StatefulRedisConnection<byte[], byte[]> connection;
		while ((connection = this.idle.pollFirst()) != null) {
			if (connection.isOpen()) {
				return connection;
			}
			connection.closeAsync();
		}
		return this.client.connect(ByteArrayCodec.INSTANCE);
	}

	private void giveBack(StatefulRedisConnection<byte[], byte[]> connection, boolean reusable) {
		// A connection whose command timed out may still get that answer: not reused.
		if (reusable && !this.closed && connection.isOpen() && this.idle.size() < MAX_IDLE) {
			this.idle.addFirst(connection);
			if (!this.closed) {
				return;
			}
			this.idle.remove(connection);
		}
		connection.closeAsync();
	}

	private <T> @Nullable T await(RedisFuture<T> future, long extraMillis) {
		return LettuceScripts.await(future,
				this.connectionFactory.getClientConfiguration().getCommandTimeout().plusMillis(extraMillis));
	}

	@Override
	public void close() {
		this.closed = true;
		StatefulRedisConnection<byte[], byte[]> connection;
		while ((connection = this.idle.pollFirst()) != null) {
			connection.closeAsync();
		}
	}

}
