package io.github.redislock.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The second process of two-process measurements, driven over stdin by
 * {@link Benchmarks}. Argument: the Redis port. Commands:
 * <ul>
 * <li>{@code PREPARE column} → {@code PREPARED};</li>
 * <li>{@code CONTEND column threads warmUpMs measureMs key counterKey} →
 * {@code CONTENDED windowOps totalOps windowNanos};</li>
 * <li>{@code HANDOFF column rounds key turnKey} → {@code HANDED t0 t1 ...}.</li>
 * </ul>
 */
public final class BenchmarkChild {

	private BenchmarkChild() {
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
		StatefulRedisConnection<String, String> connection = client.connect();
		RedisCommands<String, String> redis = connection.sync();
		Map<String, Column> columns = new HashMap<>();
		say("READY");
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = commands.readLine()) != null) {
			String[] command = line.split(" ");
			switch (command[0]) {
				case "PREPARE" -> {
					columns.computeIfAbsent(command[1], (id) -> Columns.create(id, port));
					say("PREPARED");
				}
				case "CONTEND" -> {
					Column column = columns.computeIfAbsent(command[1], (id) -> Columns.create(id, port));
					Measure.Run run = Workloads.contendAcrossProcesses(column, Integer.parseInt(command[2]),
							Long.parseLong(command[3]), Long.parseLong(command[4]), command[5], command[6], redis);
					say("CONTENDED " + run.windowOps() + " " + run.totalOps() + " " + run.windowNanos());
				}
				case "HANDOFF" -> {
					Column column = columns.computeIfAbsent(command[1], (id) -> Columns.create(id, port));
					long[] times = Workloads.handOff(column.locker(command[3]), false, Integer.parseInt(command[2]),
							command[4], redis);
					say("HANDED " + String.join(" ", Workloads.format(times)));
				}
				case "CLOSE" -> {
					Column column = columns.remove(command[1]);
					if (column != null) {
						column.close();
					}
					say("CLOSED");
				}
				default -> say("UNKNOWN " + line);
			}
		}
		columns.values().forEach(Column::close);
		connection.close();
		client.shutdown();
	}

	private static synchronized void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
