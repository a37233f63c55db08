package io.github.redislock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;

/**
 * The same uncontended acquire and release on one server of the matrix (Redis 7, Redis 8,
 * Valkey 9): the Redis time each costs, counted by the server, and single-thread pairs
 * per second; beside the raw floor, whose release is a compare-and-delete script, and,
 * where the server has it, the floor whose release is Valkey's {@code DELIFEQ} command
 * (compare-and-delete without a script).
 */
final class ServerBench {

	private static final AtomicLong TOKENS = new AtomicLong();

	private ServerBench() {
	}

	/**
	 * @param column what was measured
	 * @param acquireMicros Redis µs per acquire (scripts' time where scripts ran)
	 * @param releaseMicros Redis µs per release
	 * @param acquireCommands commands Redis ran per acquire (scripts' inner commands
	 * included)
	 * @param releaseCommands commands Redis ran per release
	 */
	record Cost(String column, double acquireMicros, double releaseMicros, double acquireCommands,
			double releaseCommands) {
	}

	/**
	 * Return whether the server answers {@code DELIFEQ} (Valkey 9).
	 */
	static boolean hasDelIfEq(RedisCommands<String, String> redis) {
		try {
			delIfEq(redis, "server-bench:probe", "x");
			return true;
		}
		catch (RedisCommandExecutionException ex) {
			return false;
		}
	}

	/**
	 * Acquire and release {@code locks} locks of their own through the locker, and return
	 * what Redis counted for them ({@code INFO commandstats} deltas).
	 */
	static Cost cost(String column, RedisCommands<String, String> control, List<Column.Locker> lockers) {
		// A first pair each: scripts loaded, connections warm.
		lockers.forEach((locker) -> {
			locker.lock();
			locker.unlock();
		});
		long[] before = stats(control);
		lockers.forEach(Column.Locker::lock);
		long[] acquired = stats(control);
		lockers.forEach(Column.Locker::unlock);
		long[] released = stats(control);
		double n = lockers.size();
		return new Cost(column, micros(before, acquired) / n, micros(acquired, released) / n,
				(acquired[0] - before[0]) / n, (released[0] - acquired[0]) / n);
	}

	/**
	 * A floor lock whose release is {@code DELIFEQ}: {@code SET NX PX} to acquire, the
	 * server's own compare-and-delete to release. It does not wait: uncontended only.
	 */
	static Column.Locker delIfEqLocker(RedisCommands<String, String> redis, String key) {
		String owner = TOKENS.incrementAndGet() + ":";
		return new Column.Locker() {

			private long holds;

			private String token = "";

			@Override
			public void lock() {
				String candidate = owner + (++this.holds);
				if (!"OK".equals(redis.set(key, candidate, SetArgs.Builder.nx().px(30_000)))) {
					throw new IllegalStateException("the DELIFEQ floor does not wait");
				}
				this.token = candidate;
			}

			@Override
			public void unlock() {
				if (delIfEq(redis, key, this.token) != 1) {
					throw new IllegalStateException("DELIFEQ did not delete " + key);
				}
			}

		};
	}

	static long delIfEq(RedisCommands<String, String> redis, String key, String value) {
		Long deleted = redis.dispatch(DelIfEq.INSTANCE, new IntegerOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8).addKey(key).addValue(value));
		return (deleted != null) ? deleted : 0;
	}

	/**
	 * The server's name and version, from {@code INFO server}.
	 */
	static String version(RedisCommands<String, String> redis) {
		String info = redis.info("server");
		String name = field(info, "server_name:");
		String version = field(info, "valkey_version:");
		if (version == null) {
			version = field(info, "redis_version:");
		}
		return ((name != null) ? name : "redis") + " " + version;
	}

	private static String field(String info, String name) {
		return info.lines()
			.filter((line) -> line.startsWith(name))
			.findFirst()
			.map((line) -> line.substring(name.length()).trim())
			.orElse(null);
	}

	static RedisClient client(int port) {
		return RedisClient.create(RedisURI.create("127.0.0.1", port));
	}

	static List<Column.Locker> lockers(int count, java.util.function.IntFunction<Column.Locker> locker) {
		List<Column.Locker> lockers = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			lockers.add(locker.apply(i));
		}
		return lockers;
	}

	/**
	 * Calls and µs of all commands so far but INFO, and of scripts alone.
	 */
	static long[] stats(RedisCommands<String, String> control) {
		long calls = 0;
		long micros = 0;
		long scriptMicros = 0;
		long scriptCalls = 0;
		for (String line : control.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
				calls += number(line, "calls=");
				micros += number(line, "usec=");
				if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
					scriptMicros += number(line, "usec=");
					scriptCalls += number(line, "calls=");
				}
			}
		}
		return new long[] { calls, micros, scriptMicros, scriptCalls };
	}

	/**
	 * The scripts' µs when scripts ran (they cover their inner commands, which INFO lists
	 * on their own too), else all commands' µs.
	 */
	static long micros(long[] before, long[] after) {
		return (after[3] > before[3]) ? after[2] - before[2] : after[1] - before[1];
	}

	private static long number(String line, String name) {
		int start = line.indexOf(name) + name.length();
		int end = line.indexOf(',', start);
		return Long.parseLong(line.substring(start, (end < 0) ? line.length() : end));
	}

	/**
	 * Valkey 9's {@code DELIFEQ key value}: deletes the key when it holds that value.
	 */
	private enum DelIfEq implements ProtocolKeyword {

		INSTANCE;

		private static final byte[] BYTES = "DELIFEQ".getBytes(StandardCharsets.US_ASCII);

		@Override
		public byte[] getBytes() {
			return BYTES;
		}

		@Override
		public String toString() {
			return "DELIFEQ";
		}

	}

	/** Keeps the client and connection of one server together. */
	record Connection(RedisClient client, StatefulRedisConnection<String, String> connection) implements AutoCloseable {

		static Connection open(int port) {
			RedisClient client = ServerBench.client(port);
			return new Connection(client, client.connect());
		}

		RedisCommands<String, String> sync() {
			return this.connection.sync();
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown();
		}

	}

}
