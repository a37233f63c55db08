package io.github.redislock.internal.lock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockHolder;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.ClassUtils;

/**
 * The Redis side of the exclusive locks: each state change is one Lua script, run by
 * EVALSHA (falling back to EVAL once per server when the script is not cached yet).
 */
final class LockCommands {

	private static final RedisScript<Long> ACQUIRE = script("acquire.lua", Long.class);

	private static final RedisScript<Long> RELEASE = releaseScript("release.lua");

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> RENEW = script("renew.lua", List.class);

	private static final RedisScript<Long> EXTEND = script("extend.lua", Long.class);

	private static final RedisScript<Long> EXTEND_MEMBER = script("extend-member.lua", Long.class);

	private static final RedisScript<Long> FORCE_UNLOCK = script("force-unlock.lua", Long.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> HOLDER = script("holder.lua", List.class);

	private static final RedisScript<Long> ACQUIRE_SEMAPHORE = script("acquire-semaphore.lua", Long.class);

	private static final RedisScript<Long> RELEASE_SEMAPHORE = script("release-semaphore.lua", Long.class);

	private static final RedisScript<Long> SEMAPHORE_COUNT = script("semaphore-count.lua", Long.class);

	/**
	 * The fencing counter outlives the lock by at least this, so that tokens increase
	 * even when the Redis clock steps back by less.
	 */
	private static final long MIN_FENCE_RETENTION_MS = Duration.ofMinutes(1).toMillis();

	static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			LockCommands.class.getClassLoader());

	/** Lettuce's default command timeout. */
	private static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(60);

	/** Result of an acquisition that too few replicas confirmed (and that was undone). */
	static final long NOT_ACKNOWLEDGED = -1;

	/** Why the current thread's last acknowledged acquisition was not acknowledged. */
	private static final ThreadLocal<@Nullable String> LAST_SHORTFALL = new ThreadLocal<>();

	private final StringRedisTemplate redis;

	private final LockKeys keys;

	private final RedisConnectionFactory connectionFactory;

	private final @Nullable LettuceScripts lettuce;

	private final int minReplicasAcked;

	private final long replicaAckTimeoutMillis;

	/** Made on first use: set under this monitor, read without it (volatile). */
	private volatile @Nullable ReplicaAckConnections replicaAckConnections;

	/** Made on first use: set under this monitor, read without it (volatile). */
	private volatile @Nullable ThreadPoolTaskExecutor blockingCalls;

	/** {@code "1"} when releases are announced as sharded messages, else {@code "0"}. */
	private final String sharded;

	LockCommands(RedisConnectionFactory connectionFactory, LockKeys keys) {
		this(connectionFactory, keys, 0, 0);
	}

	LockCommands(RedisConnectionFactory connectionFactory, LockKeys keys, int minReplicasAcked,
			long replicaAckTimeoutMillis) {
		if (minReplicasAcked > 0 && !(connectionFactory instanceof LettuceConnectionFactory)) {
			throw new IllegalStateException("redislock.min-replicas-acked=" + minReplicasAcked
					+ " needs Lettuce (spring-boot-starter-data-redis's default client): replica acknowledgement"
					+ " runs WAIT on the connection and node that ran the acquire script, which "
					+ connectionFactory.getClass().getName() + " does not offer. Use Lettuce, or set"
					+ " redislock.min-replicas-acked=0");
		}
		this.connectionFactory = connectionFactory;
		// Not even loaded without Lettuce (an application on Jedis): it links Lettuce's
		// types.
		this.lettuce = LETTUCE_PRESENT ? LettuceScripts.of(connectionFactory) : null;
		this.redis = new StringRedisTemplate(connectionFactory);
		this.keys = keys;
		this.sharded = flag(ReleaseSignals.sharded(connectionFactory));
		this.minReplicasAcked = minReplicasAcked;
		this.replicaAckTimeoutMillis = replicaAckTimeoutMillis;
	}

	/**
	 * {@code "1"} when releases are announced as sharded messages, else {@code "0"}.
	 */
	String shardedFlag() {
		return this.sharded;
	}

	LockKeys keys() {
		return this.keys;
	}

	/**
	 * Load a script of this package once, as text: a script made from a resource would
	 * check the resource for changes on every call.
	 */
	static <T> RedisScript<T> script(String name, Class<T> resultType) {
		return RedisScript.of(text(name), resultType);
	}

	/**
	 * Load a release script of this package behind the functions the release scripts
	 * share ({@code release-common.lua}).
	 */
	static RedisScript<Long> releaseScript(String name) {
		return RedisScript.of(text("release-common.lua") + "\n" + text(name), Long.class);
	}

	private static String text(String name) {
		try {
			return new ClassPathResource(name, LockCommands.class).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the script " + name, ex);
		}
	}

	/**
	 * Try once to take the lock.
	 * @param releaseMessage what the undo of an unacknowledged acquisition publishes, so
	 * that waiters of other instances know which lock was freed
	 * @return the fencing token when acquired, otherwise minus the holder's remaining
	 * lease in milliseconds
	 */
	long acquire(String lockKey, String owner, long leaseMillis, boolean willWait, boolean othersWait,
			String releaseMessage) {
		return acquiring(acquireCall(lockKey, owner, leaseMillis, willWait, othersWait, releaseMessage));
	}

	/**
	 * The script call of {@link #acquire}.
	 */
	ScriptCall acquireCall(String lockKey, String owner, long leaseMillis, boolean willWait, boolean othersWait,
			String releaseMessage) {
		ScriptCall undo = releaseCall(lockKey, owner, 0, releaseMessage, 0);
		return new ScriptCall(
				ACQUIRE, List.of(lockKey), List.of(owner, Long.toString(leaseMillis),
						Long.toString(fenceRetention(leaseMillis)), flag(willWait), flag(othersWait)),
				"acquire", () -> call(undo), undo);
	}

	/**
	 * One script call with an integer result, made now ({@link #call},
	 * {@link #acquiring}) or as a future ({@link #callAsync}, {@link #acquiringAsync}).
	 *
	 * @param undo for an acquisition: releases what it took, owner-checked (run when too
	 * few replicas confirmed it)
	 * @param undoCall for an acquisition: the script call {@code undo} makes, for sending
	 * it on the acquisition's own connection right behind it (see
	 * {@link ReplicaAckConnections})
	 */
	record ScriptCall(RedisScript<Long> script, List<String> keys, List<String> args, String what, Runnable undo,
			@Nullable ScriptCall undoCall) {

		ScriptCall(RedisScript<Long> script, List<String> keys, List<String> args, String what) {
			this(script, keys, args, what, () -> {
			}, null);
		}

	}

	long call(ScriptCall call) {
		return run(call.script(), call.keys(), call.args(), call.what());
	}

	long acquiring(ScriptCall call) {
		return acquiring(call.script(), call.keys(), call.args(), call.undo(), call.undoCall());
	}

	/**
	 * Make a script call without blocking the caller: on the shared native Lettuce
	 * connection's asynchronous API, answered by Lettuce's I/O thread. Without one (a
	 * client other than Lettuce, or no shared connection), the blocking call runs on a
	 * thread of the engine's own instead.
	 */
	CompletableFuture<Long> callAsync(ScriptCall call) {
		LettuceScripts lettuce = this.lettuce;
		if (lettuce != null) {
			return lettuce.runAsync(call.script(), encode(call.keys(), List.of()), encode(call.args(), List.of()))
				.thenApply((result) -> nonNull(result, call.what()));
		}
		return CompletableFuture.supplyAsync(() -> call(call), blockingCalls());
	}

	/**
	 * Make an acquisition's script call without blocking the caller; with replica
	 * acknowledgement on, the script and WAIT run on a thread of the engine's own (WAIT
	 * blocks its connection).
	 */
	CompletableFuture<Long> acquiringAsync(ScriptCall call) {
		if (this.minReplicasAcked == 0) {
			return callAsync(call);
		}
		return CompletableFuture.supplyAsync(() -> acquiring(call), blockingCalls());
	}

	/**
	 * Return the longest an acquisition's attempt and the undo behind it take before both
	 * are answered or have failed: each waits at most twice the client's command timeout
	 * (a Cluster view reloaded and one more try), the attempt also for its replicas'
	 * acknowledgement. For a client other than Lettuce, whose calls its own timeouts
	 * bound, Lettuce's default command timeout stands in.
	 */
	Duration settleBound() {
		Duration commandTimeout = (LETTUCE_PRESENT
				&& this.connectionFactory instanceof LettuceConnectionFactory lettuce)
						? lettuce.getClientConfiguration().getCommandTimeout() : DEFAULT_COMMAND_TIMEOUT;
		return commandTimeout.multipliedBy(4).plusMillis(this.replicaAckTimeoutMillis);
	}

	/**
	 * Return the threads of calls that cannot be made asynchronously, made on first use.
	 */
	Executor blockingCalls() {
		ThreadPoolTaskExecutor executor = this.blockingCalls;
		if (executor == null) {
			synchronized (this) {
				executor = this.blockingCalls;
				if (executor == null) {
					executor = EngineThreads.unbounded("redislock-blocking-call");
					this.blockingCalls = executor;
				}
			}
		}
		return executor;
	}

	/**
	 * Run an acquire script. With replica acknowledgement on, a successful acquisition is
	 * followed by WAIT on the same connection to the same node; when fewer replicas than
	 * required confirm it, or its slot moved to another Cluster master meanwhile,
	 * {@code undo} releases it again and {@link #NOT_ACKNOWLEDGED} is returned (the
	 * shortfall is then {@link #lastShortfall() kept for this thread}).
	 */
	long acquiring(RedisScript<Long> script, List<String> keys, List<String> args, Runnable undo,
			@Nullable ScriptCall undoCall) {
		if (this.minReplicasAcked == 0) {
			return run(script, keys, args, "acquire");
		}
		LAST_SHORTFALL.remove();
		ReplicaAckConnections.Call unanswered = (undoCall != null) ? new ReplicaAckConnections.Call(undoCall.script(),
				encode(undoCall.keys(), List.of()), encode(undoCall.args(), List.of())) : null;
		// Every acquire script's first argument is the acquisition's owner id.
		ReplicaAckConnections.Outcome outcome = replicaAckConnections().acquireAndWait(args.get(0), script,
				encode(keys, List.of()), encode(args, List.of()), this.minReplicasAcked, this.replicaAckTimeoutMillis,
				unanswered);
		if (outcome.moved()) {
			if (outcome.result() > 0) {
				undo.run();
			}
			LAST_SHORTFALL.set("its Redis Cluster slot moved to another master before the replicas confirmed it");
			return NOT_ACKNOWLEDGED;
		}
		if (outcome.result() > 0 && outcome.confirmed() < this.minReplicasAcked) {
			undo.run();
			LAST_SHORTFALL.set("only " + outcome.confirmed() + " of " + this.minReplicasAcked
					+ " required replicas confirmed it within " + this.replicaAckTimeoutMillis
					+ "ms (redislock.min-replicas-acked, redislock.replica-ack-timeout)");
			return NOT_ACKNOWLEDGED;
		}
		return outcome.result();
	}

	/**
	 * An acquisition ended, with the lock or without it: with replica acknowledgement,
	 * its connection is given back (see {@link ReplicaAckConnections#ended}).
	 */
	void acquisitionEnded(String owner, boolean acquired) {
		ReplicaAckConnections connections = this.replicaAckConnections;
		if (connections != null) {
			connections.ended(owner, acquired);
		}
	}

	/**
	 * Return why the current thread's last acquisition through these commands was not
	 * acknowledged, or {@code null} when it was, when it failed for another reason, or
	 * when replica acknowledgement is off.
	 */
	@Nullable String lastShortfall() {
		return (this.minReplicasAcked > 0) ? LAST_SHORTFALL.get() : null;
	}

	/**
	 * Return the connections of their own that acknowledged acquisitions use, made on
	 * first use (the factory's client exists once it has started).
	 */
	private ReplicaAckConnections replicaAckConnections() {
		ReplicaAckConnections connections = this.replicaAckConnections;
		if (connections == null) {
			synchronized (this) {
				connections = this.replicaAckConnections;
				if (connections == null) {
					connections = ReplicaAckConnections.of((LettuceConnectionFactory) this.connectionFactory);
					this.replicaAckConnections = connections;
				}
			}
		}
		return connections;
	}

	/**
	 * Close the connections of acknowledged acquisitions.
	 */
	void close() {
		ReplicaAckConnections connections = this.replicaAckConnections;
		if (connections != null) {
			connections.close();
		}
		ThreadPoolTaskExecutor executor = this.blockingCalls;
		if (executor != null) {
			executor.shutdown();
		}
	}

	/**
	 * Run a script with an integer result: the hot path of acquire and release. On the
	 * shared native Lettuce connection when there is one, else on a connection of the
	 * factory; either way without the template's proxies and serializers.
	 */
	long run(RedisScript<Long> script, List<String> keys, List<String> args, String what) {
		LettuceScripts lettuce = this.lettuce;
		if (lettuce != null) {
			return nonNull(lettuce.run(script, encode(keys, List.of()), encode(args, List.of())), what);
		}
		// Spring Data's own script executor: EVALSHA, then EVAL when the script is
		// missing.
		return nonNull(this.redis.execute(script, keys, args.toArray()), what);
	}

	private static byte[][] encode(List<String> keys, List<String> args) {
		byte[][] keysAndArgs = new byte[keys.size() + args.size()][];
		int i = 0;
		for (String value : keys) {
			keysAndArgs[i++] = value.getBytes(StandardCharsets.UTF_8);
		}
		for (String value : args) {
			keysAndArgs[i++] = value.getBytes(StandardCharsets.UTF_8);
		}
		return keysAndArgs;
	}

	/**
	 * Release the lock if {@code owner} holds it; {@code message} goes to the release
	 * channel when someone waits. With the hold's fencing token (0 when unknown), a run
	 * of this release that the client re-sends after a reconnect is recognised and
	 * answers 1 again. With {@code holdAtLeastMillis}, the lock stays ours until that
	 * long after the token was issued (by this server's clock; without a token, from now)
	 * and only then expires.
	 * @return 1 released (or kept for its hold-at-least), 0 no lock there, -1 held by
	 * another owner (left untouched)
	 */
	long release(String lockKey, String owner, long token, String message, long holdAtLeastMillis) {
		return call(releaseCall(lockKey, owner, token, message, holdAtLeastMillis));
	}

	/**
	 * The script call of {@link #release}.
	 */
	ScriptCall releaseCall(String lockKey, String owner, long token, String message, long holdAtLeastMillis) {
		return new ScriptCall(RELEASE, List.of(lockKey), List.of(owner, this.keys.releaseChannel(lockKey), message,
				Long.toString(token), Long.toString(fenceRetention(0)), Long.toString(holdAtLeastMillis), this.sharded),
				"release");
	}

	/**
	 * The script call that extends a held lock hash (an exclusive lock, a write side) to
	 * a new fixed lease if {@code owner} holds it: one round trip. With
	 * {@code holdAtLeastMillis}, the lock stays taken after its release until at least
	 * that long after the extension ran, by this server's clock.
	 * @return (of the call) 1 extended, 0 the hold was gone, -1 another owner holds it
	 * (left untouched)
	 */
	ScriptCall extendCall(String lockKey, String owner, long leaseMillis, long holdAtLeastMillis) {
		return new ScriptCall(EXTEND, List.of(lockKey),
				List.of(owner, Long.toString(leaseMillis), Long.toString(holdAtLeastMillis)), "extend");
	}

	/**
	 * The script call that extends a holder's entry of a sorted set (a reader, a
	 * semaphore permit) to a new fixed lease if it is still there: one round trip.
	 * @param atLeastKey where a reader's hold-at-least from the extension is recorded
	 * ({@code null} for a permit, which has none)
	 * @return (of the call) 1 extended, 0 the hold was gone
	 */
	ScriptCall extendMemberCall(String setKey, @Nullable String atLeastKey, String owner, long leaseMillis,
			long holdAtLeastMillis) {
		return new ScriptCall(EXTEND_MEMBER, (atLeastKey != null) ? List.of(setKey, atLeastKey) : List.of(setKey),
				List.of(owner, Long.toString(leaseMillis), Long.toString(holdAtLeastMillis)), "extend");
	}

	/**
	 * Delete a lock whoever holds it and wake its waiters.
	 * @param lockKey the key to delete
	 * @param signalKey the key the lock's waiters wait for (its release channel's)
	 */
	boolean forceUnlock(String lockKey, String signalKey, String message) {
		return nonNull(this.redis.execute(FORCE_UNLOCK, List.of(lockKey), this.keys.releaseChannel(signalKey), message,
				this.sharded), "force-unlock") == 1;
	}

	/**
	 * Renew many holds in one script (lock hashes, write sides, readers sets); all keys
	 * must lie in one Cluster slot.
	 * @return per key whether it was still ours and is renewed
	 */
	boolean[] renew(List<String> lockKeys, List<String> owners, long leaseMillis) {
		List<String> args = new ArrayList<>(owners.size() + 1);
		args.add(Long.toString(leaseMillis));
		args.addAll(owners);
		return renewed(lockKeys.size(), this.redis.execute(RENEW, lockKeys, args.toArray()));
	}

	/**
	 * Renew many holds as {@link #renew} does, without blocking the caller: on the shared
	 * native Lettuce connection (so each batch goes to its slot's node on its own and a
	 * node that does not answer holds up only its own batches), else on a thread of the
	 * engine's own.
	 * @param timeout how long to wait for the answer before the future fails
	 * @return a future of, per key, whether it was still ours and is renewed
	 */
	CompletableFuture<boolean[]> renewAsync(List<String> lockKeys, List<String> owners, long leaseMillis,
			Duration timeout) {
		LettuceScripts lettuce = this.lettuce;
		if (lettuce == null) {
			return AsyncTimeouts.within(
					CompletableFuture.supplyAsync(() -> renew(lockKeys, owners, leaseMillis), blockingCalls()), timeout,
					() -> new QueryTimeoutException("Renewal timed out after " + timeout));
		}
		List<String> args = new ArrayList<>(owners.size() + 1);
		args.add(Long.toString(leaseMillis));
		args.addAll(owners);
		return lettuce.runListAsync(RENEW, encode(lockKeys, List.of()), encode(args, List.of()), timeout)
			.thenApply((result) -> renewed(lockKeys.size(), result));
	}

	/**
	 * Send a {@code PING} on the connection the locks use, without blocking the caller:
	 * on the shared native Lettuce connection, else on a thread of the engine's own.
	 * @param timeout how long to wait for the answer before the future fails
	 * @return a future that completes when Redis answered
	 */
	CompletableFuture<Void> pingAsync(Duration timeout) {
		LettuceScripts lettuce = this.lettuce;
		CompletableFuture<?> answer = (lettuce != null) ? lettuce.pingAsync() : CompletableFuture.supplyAsync(
				() -> this.redis.execute((RedisCallback<String>) (connection) -> connection.ping()), blockingCalls());
		return AsyncTimeouts.within(answer.thenApply((pong) -> (Void) null), timeout,
				() -> new QueryTimeoutException("Redis did not answer a PING within " + timeout));
	}

	private static boolean[] renewed(int count, @Nullable List<?> result) {
		boolean[] renewed = new boolean[count];
		if (result != null) {
			for (int i = 0; i < renewed.length && i < result.size(); i++) {
				renewed[i] = ((Number) result.get(i)).longValue() == 1;
			}
		}
		return renewed;
	}

	/**
	 * Return the owner id of whoever holds a lock (an exclusive lock, a write side, the
	 * permit whose lease ends last), or {@code null} when no one does.
	 */
	@Nullable String owner(String lockKey) {
		List<?> found = this.redis.execute(HOLDER, List.of(lockKey));
		return (found != null && !found.isEmpty()) ? (String) found.get(0) : null;
	}

	/**
	 * The script call that takes one permit of a semaphore: a token when taken, otherwise
	 * minus the ms until the earliest permit's lease ends.
	 */
	ScriptCall acquirePermitCall(LockKeys.SemaphoreKeys keys, String owner, long leaseMillis, int permits,
			boolean willWait, boolean othersWait, String releaseMessage) {
		ScriptCall undo = releasePermitCall(keys, owner, releaseMessage);
		return new ScriptCall(ACQUIRE_SEMAPHORE, List.of(keys.permits(), keys.waiters(), keys.fence()),
				List.of(owner, Long.toString(leaseMillis), Integer.toString(permits),
						Long.toString(fenceRetention(leaseMillis)), flag(willWait), flag(othersWait)),
				"acquire", () -> call(undo), undo);
	}

	/**
	 * The script call that gives back one permit if {@code owner} holds it: 1 released, 0
	 * no longer there.
	 */
	ScriptCall releasePermitCall(LockKeys.SemaphoreKeys keys, String owner, String message) {
		return new ScriptCall(RELEASE_SEMAPHORE, List.of(keys.permits(), keys.waiters()),
				List.of(owner, this.keys.releaseChannel(keys.permits()), message, this.sharded), "release");
	}

	/**
	 * Return how many permits of a semaphore are held now.
	 */
	long heldPermits(LockKeys.SemaphoreKeys keys) {
		return run(SEMAPHORE_COUNT, List.of(keys.permits()), List.of(), "permit count");
	}

	/**
	 * Return who holds a lock (its hash, or the sorted set of its readers or permits), on
	 * this server, with the holder's instance record when there is one.
	 */
	Optional<LockHolder> holder(String key) {
		List<?> found = this.redis.execute(HOLDER, List.of(key));
		if (found == null || found.size() < 3) {
			return Optional.empty();
		}
		String owner = (String) found.get(0);
		String token = (String) found.get(1);
		long leaseLeft = Math.max(0, ((Number) found.get(2)).longValue());
		int end = owner.indexOf(':');
		String instanceId = (end > 0) ? owner.substring(0, end) : owner;
		String record = this.redis.opsForValue().get(this.keys.instanceKey(instanceId));
		String[] fields = (record != null) ? record.split("\n", 3) : new String[0];
		long pid = (fields.length == 3) ? Long.parseLong(fields[0]) : -1;
		String host = (fields.length == 3) ? fields[1] : "unknown";
		String application = (fields.length == 3) ? fields[2] : "";
		// A token is the server's clock in microseconds at acquisition (or one more than
		// the
		// last token, when that was later).
		Instant acquiredAt = token.isEmpty() ? null : Instant.EPOCH.plus(Long.parseLong(token), ChronoUnit.MICROS);
		return Optional
			.of(new LockHolder(instanceId, host, pid, application, acquiredAt, Duration.ofMillis(leaseLeft)));
	}

	/**
	 * Write (or refresh) this instance's record, for {@link #holder(String)} lookups of
	 * other instances.
	 */
	void registerInstance(String instanceId, Duration ttl, String host, long pid, String application) {
		// One SET with its time to live: atomic, and never left without one.
		String record = pid + "\n" + oneLine(host) + "\n" + oneLine(application);
		this.redis.opsForValue().set(this.keys.instanceKey(instanceId), record, ttl);
	}

	private static String oneLine(String text) {
		return text.replace('\n', ' ').replace('\r', ' ');
	}

	/**
	 * Remove this instance's record (it stops).
	 */
	void unregisterInstance(String instanceId) {
		this.redis.delete(this.keys.instanceKey(instanceId));
	}

	boolean exists(String lockKey) {
		if (isExclusive(lockKey)) {
			return !remainingLease(lockKey).isZero();
		}
		return Boolean.TRUE.equals(this.redis.hasKey(lockKey));
	}

	Duration remainingLease(String lockKey) {
		if (isExclusive(lockKey)) {
			// Its key outlives the hold, which ends at the deadline the key records.
			List<?> found = this.redis.execute(HOLDER, List.of(lockKey));
			long millis = (found != null && found.size() == 3) ? ((Number) found.get(2)).longValue() : 0;
			return (millis > 0) ? Duration.ofMillis(millis) : Duration.ZERO;
		}
		Long millis = this.redis.getExpire(lockKey, TimeUnit.MILLISECONDS);
		return (millis != null && millis > 0) ? Duration.ofMillis(millis) : Duration.ZERO;
	}

	/**
	 * Whether a key is an exclusive lock's (a string with the hold's deadline, see
	 * {@code acquire.lua}): the only lock keys that end in the hash tag's brace.
	 */
	private static boolean isExclusive(String lockKey) {
		return lockKey.endsWith("}");
	}

	boolean isCluster() {
		RedisCallback<Boolean> isCluster = (connection) -> connection instanceof RedisClusterConnection;
		return Boolean.TRUE.equals(this.redis.execute(isCluster));
	}

	static long fenceRetention(long leaseMillis) {
		return Math.max(2 * leaseMillis, MIN_FENCE_RETENTION_MS);
	}

	StringRedisTemplate redis() {
		return this.redis;
	}

	static String flag(boolean value) {
		return value ? "1" : "0";
	}

	private static long nonNull(@Nullable Long result, String script) {
		if (result == null) {
			throw new IllegalStateException("Redis returned no result for the " + script
					+ " script; is the connection in a pipeline or transaction?");
		}
		return result;
	}

}
