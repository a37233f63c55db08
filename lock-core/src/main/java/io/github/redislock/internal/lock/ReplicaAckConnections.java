package io.github.redislock.internal.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ConnectionIntent;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Connections of their own for acquisitions that wait for replica acknowledgement.
 * {@code WAIT} counts the writes of the connection it runs on and blocks it for up to the
 * acknowledgement timeout, so it must run on the very connection that ran the acquire
 * script, and not on the application's shared connection (it would hold up every other
 * command of the application). Each such acquisition borrows a connection from a small
 * pool of native Lettuce connections made by the factory's own client (same servers,
 * credentials and TLS), runs the script and {@code WAIT} on it, and gives it back.
 * <p>
 * On a Redis Cluster, {@code WAIT} is keyless: sent on a cluster connection it would go
 * to some node that ran none of our writes. So the pool holds cluster connections, and an
 * acquisition runs the script and {@code WAIT} on the borrowed connection's own
 * connection to the master that owns the lock's slot, which does not follow redirects.
 * Pipelined behind the {@code WAIT} goes a read of the lock's key: if the slot moved away
 * from that master meanwhile (MOVED or ASK, to the script or to that read), the
 * acquisition counts as not acknowledged, the topology is reloaded, and the caller
 * retries within its wait time.
 * <p>
 * An acquisition keeps the connection it borrowed for all its attempts (its session, by
 * owner id), until it ends. When an attempt gets no answer (timed out, the thread
 * interrupted, the connection lost), its script may still run later: a node that hangs
 * runs it when it wakes. The attempts that follow go behind it on the same connection,
 * and take the same owner's hold if it ran; and when the acquisition ends without the
 * lock, its undo (the caller's release, owner-checked) is sent behind them all, so that
 * it runs after them. Sent on another connection (the shared one), the undo could run
 * first: a node that wakes reads each connection in the order they became readable,
 * whole, and the acquire would then take the lock for nobody, for a whole lease. Sent
 * after a single attempt, it could remove the hold a later attempt of the same
 * acquisition took on another connection. The connection is closed once the undo was
 * answered or failed (after a command timeout, with Spring Data's default timeout
 * options; at the latest after {@value #UNDO_ANSWER_MILLIS} ms); what was written before
 * a close is still read by the server, in order. (A connection that is reconnecting at
 * that moment loses the undo; the caller's own undo on the shared connection, and the
 * hold's lease, remain.)
 */
final class ReplicaAckConnections implements AutoCloseable {

	/** Idle connections kept; more are opened when more acquisitions wait at once. */
	static final int MAX_IDLE = 8;

	/**
	 * How long a connection whose acquire got no answer is kept open for the answer of
	 * the undo sent behind it.
	 */
	static final long UNDO_ANSWER_MILLIS = 60_000;

	private final LettuceConnectionFactory connectionFactory;

	private final AbstractRedisClient client;

	private final Deque<StatefulConnection<byte[], byte[]>> idle = new ConcurrentLinkedDeque<>();

	/** The sessions of the acquisitions under way, by owner id. */
	private final Map<String, Session> sessions = new ConcurrentHashMap<>();

	private volatile boolean closed;

	private ReplicaAckConnections(LettuceConnectionFactory connectionFactory, AbstractRedisClient client) {
		this.connectionFactory = connectionFactory;
		this.client = client;
	}

	/**
	 * Return the connections for a started factory whose client is a standalone, Sentinel
	 * or Cluster Lettuce client.
	 * @throws IllegalStateException when the factory's client is of another kind
	 */
	static ReplicaAckConnections of(LettuceConnectionFactory connectionFactory) {
		AbstractRedisClient client = connectionFactory.getRequiredNativeClient();
		if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
			throw new IllegalStateException("Replica acknowledgement (redislock.min-replicas-acked) needs a Lettuce"
					+ " RedisClient or RedisClusterClient, not " + client.getClass().getName());
		}
		return new ReplicaAckConnections(connectionFactory, client);
	}

	/**
	 * The outcome of an acquisition with replica acknowledgement.
	 *
	 * @param result the acquire script's result (0 when the slot moved before it ran)
	 * @param confirmed how many replicas confirmed it (0 when not acquired)
	 * @param moved whether the lock's slot moved to another master before the
	 * confirmation was in: then the acquisition, if any, is not acknowledged
	 */
	record Outcome(long result, long confirmed, boolean moved) {

	}

	/**
	 * A script call, encoded.
	 */
	record Call(RedisScript<Long> script, byte[][] keys, byte[][] args) {

	}

	/**
	 * Run an acquire script, then, when it acquired, {@code WAIT} for {@code replicas},
	 * on the connection of the acquisition's session (on a Cluster, to the master of the
	 * first key's slot): every attempt of one acquisition goes on one connection, in
	 * order, until {@link #ended} is called.
	 * @param owner the acquisition's owner id: its session
	 * @param undo what releases the acquisition's hold, owner-checked: sent behind its
	 * attempts when it ends without the lock after an attempt got no answer
	 */
	Outcome acquireAndWait(String owner, RedisScript<Long> script, byte[][] keys, byte[][] args, int replicas,
			long timeoutMillis, @Nullable Call undo) {
		Session session = this.sessions.computeIfAbsent(owner, (key) -> new Session());
		StatefulConnection<byte[], byte[]> connection;
		try {
			synchronized (session) {
				session.busy = true;
				session.undo = undo;
				if (session.connection == null) {
					session.connection = borrow();
				}
				connection = session.connection;
			}
		}
		catch (RuntimeException ex) {
			attemptDone(session);
			throw LettuceScripts.translate(ex);
		}
		try {
			Outcome outcome = acquireAndWait(connection, script, keys, args, replicas, timeoutMillis, session);
			if (outcome.moved() && this.client instanceof RedisClusterClient cluster) {
				// For the caller's next attempt; a frozen node must not hold it up
				// longer.
				try {
					cluster.refreshPartitionsAsync()
						.toCompletableFuture()
						.get(Math.max(timeoutMillis, 100), TimeUnit.MILLISECONDS);
				}
				catch (ExecutionException | TimeoutException ex) {
					// The next attempt finds out again.
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return outcome;
		}
		catch (RuntimeException ex) {
			// (A WAIT that timed out may still be answered: the connection is not
			// reused.)
			session.failed = true;
			if (this.client instanceof RedisClusterClient cluster) {
				// A master may have failed: learn the new topology for the next attempt.
				cluster.refreshPartitionsAsync();
			}
			throw LettuceScripts.translate(ex);
		}
		finally {
			attemptDone(session);
		}
	}

	private void attemptDone(Session session) {
		synchronized (session) {
			session.busy = false;
			if (session.ended) {
				close(session);
			}
		}
	}

	/**
	 * An acquisition ended (with the lock or without it): its connection goes back to the
	 * pool, or, when one of its attempts got no answer, is closed; before that, when it
	 * ended without the lock, the undo goes behind its attempts, so that a node that hung
	 * and wakes runs it after them. A hold it took leaves no attempt behind it: its
	 * answer came after every earlier attempt's on that connection. An attempt under way
	 * (an asynchronous acquisition given up meanwhile) closes the session when it is
	 * done.
	 */
	void ended(String owner, boolean acquired) {
		Session session = this.sessions.remove(owner);
		if (session == null) {
			return;
		}
		synchronized (session) {
			session.ended = true;
			session.acquired = acquired;
			if (!session.busy) {
				close(session);
			}
		}
	}

	@GuardedBy("session")
	private void close(Session session) {
		StatefulConnection<byte[], byte[]> connection = session.connection;
		session.connection = null;
		if (connection == null) {
			return;
		}
		if (!session.unanswered) {
			giveBack(connection, !session.failed);
			return;
		}
		Call undo = session.undo;
		RedisAsyncCommands<byte[], byte[]> commands = session.unansweredCommands;
		if (session.acquired || undo == null || commands == null) {
			// A connection whose command timed out may still get that answer: not
			// reused.
			connection.closeAsync();
			return;
		}
		// Open until the undo is answered (or fails: a command timeout), so that it
		// surely goes out; what was written before a close is still read by the server,
		// in order.
		AsyncTimeouts.within(sendBehind(commands, undo), Duration.ofMillis(UNDO_ANSWER_MILLIS), TimeoutException::new)
			.whenComplete((result, failure) -> connection.closeAsync());
	}

	/**
	 * One acquisition's connection and what its attempts left: guarded by its monitor,
	 * but for the volatile flags that an attempt sets as it goes.
	 */
	private static final class Session {

		@GuardedBy("this")
		private @Nullable StatefulConnection<byte[], byte[]> connection;

		/** Whether an attempt failed (then the connection is not reused). */
		private volatile boolean failed;

		/** Whether an attempt got no answer (its script may still run). */
		private volatile boolean unanswered;

		/** Where the attempt that got no answer went (a Cluster node's connection). */
		private volatile @Nullable RedisAsyncCommands<byte[], byte[]> unansweredCommands;

		@GuardedBy("this")
		private @Nullable Call undo;

		@GuardedBy("this")
		private boolean busy;

		@GuardedBy("this")
		private boolean ended;

		@GuardedBy("this")
		private boolean acquired;

	}

	private Outcome acquireAndWait(StatefulConnection<byte[], byte[]> connection, RedisScript<Long> script,
			byte[][] keys, byte[][] args, int replicas, long timeoutMillis, Session session) {
		boolean cluster = connection instanceof StatefulRedisClusterConnection<?, ?>;
		RedisAsyncCommands<byte[], byte[]> commands = commandsFor(connection, keys[0],
				this.connectionFactory.getClientConfiguration().getCommandTimeout());
		Long token;
		try {
			token = LettuceScripts.evalsha(commands, script, keys, args,
					this.connectionFactory.getClientConfiguration().getCommandTimeout());
		}
		catch (RedisCommandExecutionException ex) {
			// Answered: the script did not run.
			if (cluster && isRedirect(ex)) {
				return new Outcome(0, 0, true);
			}
			throw ex;
		}
		catch (RuntimeException ex) {
			// No answer: the script may still run. The next attempts go behind it on this
			// connection; so does the undo, if the acquisition ends without the lock.
			session.unansweredCommands = commands;
			session.unanswered = true;
			throw ex;
		}
		long result = (token != null) ? token : 0;
		if (result <= 0) {
			return new Outcome(result, 0, false);
		}
		RedisFuture<Long> waiting = commands.waitForReplication(replicas, timeoutMillis);
		// Behind WAIT on the same connection, so it runs after it: does this master
		// still serve the key?
		RedisFuture<Long> stillHere = cluster ? commands.pttl(keys[0]) : null;
		Long confirmed = await(waiting, timeoutMillis);
		if (stillHere != null) {
			try {
				await(stillHere, 0);
			}
			catch (RedisCommandExecutionException ex) {
				if (isRedirect(ex)) {
					return new Outcome(result, (confirmed != null) ? confirmed : 0, true);
				}
				throw ex;
			}
		}
		return new Outcome(result, (confirmed != null) ? confirmed : 0, false);
	}

	/**
	 * Send a script call on {@code commands} without waiting; as EVAL, which needs no
	 * script cache (a node that just became master may not have the script).
	 */
	private static CompletableFuture<?> sendBehind(RedisAsyncCommands<byte[], byte[]> commands, Call call) {
		try {
			return commands
				.eval(call.script().getScriptAsString().getBytes(StandardCharsets.UTF_8), ScriptOutputType.INTEGER,
						call.keys(), call.args())
				.toCompletableFuture();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Return the commands that reach the node to run on: the connection itself, or on a
	 * Cluster its connection to the master of the key's slot. A view of the cluster in
	 * which no master serves the slot (Lettuce may have taken the view of a node that
	 * just joined and knows no slots yet) is reloaded once, waiting up to
	 * {@code timeout}, before giving up.
	 */
	@SuppressWarnings("unchecked")
	private RedisAsyncCommands<byte[], byte[]> commandsFor(StatefulConnection<byte[], byte[]> connection, byte[] key,
			Duration timeout) {
		if (connection instanceof StatefulRedisClusterConnection<?, ?> cluster) {
			int slot = SlotHash.getSlot(key);
			RedisClusterNode master = cluster.getPartitions().getMasterBySlot(slot);
			if (master == null && this.client instanceof RedisClusterClient client) {
				try {
					client.refreshPartitionsAsync()
						.toCompletableFuture()
						.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
				}
				catch (ExecutionException | TimeoutException ex) {
					// Reported below, if the view still lacks the master.
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				master = cluster.getPartitions().getMasterBySlot(slot);
			}
			if (master == null) {
				throw new DataAccessResourceFailureException(
						"No master of the Redis Cluster serves slot " + slot + " (cluster down or resharding)");
			}
			return ((StatefulRedisClusterConnection<byte[], byte[]>) cluster)
				.getConnection(master.getNodeId(), ConnectionIntent.WRITE)
				.async();
		}
		return ((StatefulRedisConnection<byte[], byte[]>) connection).async();
	}

	private static boolean isRedirect(RedisCommandExecutionException ex) {
		String message = ex.getMessage();
		return message != null && (message.startsWith("MOVED ") || message.startsWith("ASK "));
	}

	private StatefulConnection<byte[], byte[]> borrow() {
		StatefulConnection<byte[], byte[]> connection;
		while ((connection = this.idle.pollFirst()) != null) {
			if (connection.isOpen()) {
				return connection;
			}
			connection.closeAsync();
		}
		if (this.client instanceof RedisClusterClient cluster) {
			return cluster.connect(ByteArrayCodec.INSTANCE);
		}
		return ((RedisClient) this.client).connect(ByteArrayCodec.INSTANCE);
	}

	private void giveBack(StatefulConnection<byte[], byte[]> connection, boolean reusable) {
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
		for (String owner : List.copyOf(this.sessions.keySet())) {
			ended(owner, true);
		}
		StatefulConnection<byte[], byte[]> connection;
		while ((connection = this.idle.pollFirst()) != null) {
			connection.closeAsync();
		}
	}

}
