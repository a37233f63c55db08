package io.github.redislock.benchmarks;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.benchmarks.peer.QueuePeer;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.TcpProxy;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Our queue ({@code @QueuedTask}) beside Rqueue on the same redis-server, each measured
 * the same way: a producer process and two worker processes of one queue, driven over
 * {@link QueuePeer}'s protocol. Rqueue is built for Spring Boot 3, so its processes run
 * with the class path of the {@code queue-peer} module (built against Spring Boot 3);
 * ours run with the benchmark's.
 */
final class QueuePeers {

	/** Tasks of the flat-out runs (the warm-up and the measured one). */
	static final int TASKS = 20_000;

	/** Tasks per second of the paced run, whose enqueue-to-start lag is measured. */
	static final int PACED_RATE = 10_000;

	static final int PACED_SECONDS = 3;

	/** Workers per queue in each worker process. */
	static final int WORKERS = 8;

	/** Longest wait for the tasks of a run after the last was enqueued. */
	private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);

	/**
	 * Rqueue's polling interval (ms) in the throughput and lag runs. With its default
	 * (200 ms) a worker instance whose workers are all busy when it polls sleeps 200 ms:
	 * 8 workers ran about 40 no-op tasks per second per instance (75 with two, measured
	 * in this benchmark), so it is lowered as a user after throughput would.
	 */
	static final long RQUEUE_POLLING_INTERVAL = 10;

	private QueuePeers() {
	}

	/**
	 * The queues under test.
	 */
	enum Peer {

		OURS, RQUEUE;

		String title() {
			return (this == OURS) ? "starter (`@QueuedTask`)"
					: "Rqueue " + rqueueVersion() + ", polling every " + RQUEUE_POLLING_INTERVAL + " ms";
		}

	}

	/**
	 * One round of one queue.
	 *
	 * @param tasksPerSecond no-op tasks per second from the first enqueue to the last run
	 * @param enqueuesPerSecond the producer's enqueues per second in that run
	 * @param commandsPerTask commands Redis ran per task in the measured flat-out run
	 * (scripts' inner commands counted as well)
	 * @param redisCpuMicrosPerTask redis-server's CPU time (user + system) per task
	 * @param commands commands per task by command, most first
	 * @param lost tasks of the three runs that never ran
	 * @param ranTwice tasks that ran more than once
	 * @param unexpected runs of tasks no worker was told of
	 */
	record Result(double tasksPerSecond, double enqueuesPerSecond, double lagP50Millis, double lagP99Millis,
			double commandsPerTask, double redisCpuMicrosPerTask, Map<String, Double> commands, long lost,
			long ranTwice, long unexpected, int tasks) {
	}

	/**
	 * Idle cost of one worker instance.
	 */
	record Idle(double requestsPerSecond, double commandsPerSecond, Map<String, Double> commands) {
	}

	static Result run(Peer peer, LocalRedisServer redis, RedisCommands<String, String> control,
			Consumer<String> progress) {
		String queue = "qp-" + peer.name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 8);
		List<Peers> all = new ArrayList<>();
		try {
			Peers first = Peers.start(peer, redis.port(), "worker", queue, 1, RQUEUE_POLLING_INTERVAL);
			all.add(first);
			Peers second = Peers.start(peer, redis.port(), "worker", queue, 1, RQUEUE_POLLING_INTERVAL);
			all.add(second);
			Peers producer = Peers.start(peer, redis.port(), "producer", queue, 1, RQUEUE_POLLING_INTERVAL);
			all.add(producer);
			for (Peers process : all) {
				process.await("READY", Duration.ofMinutes(3));
			}
			List<Peers> workers = List.of(first, second);
			progress.accept("queue-peers, " + peer + ": warm-up");
			// Warm-up: the same run, not measured (fresh JVMs run interpreted code).
			Phase warm = phase(producer, workers, "warm", TASKS, 0);
			progress.accept("queue-peers, " + peer + ": flat out");
			Map<String, long[]> before = commandStats(control);
			double cpuBefore = redisCpu(control);
			Phase flat = phase(producer, workers, "flat", TASKS, 0);
			double cpuAfter = redisCpu(control);
			Map<String, long[]> after = commandStats(control);
			progress.accept("queue-peers, " + peer + ": paced");
			Phase paced = phase(producer, workers, "paced", PACED_RATE * PACED_SECONDS, PACED_RATE);
			// Late duplicates of the runs above would show by now.
			Measure.sleep(1000);
			long lost = 0;
			long ranTwice = 0;
			for (Phase phase : List.of(warm, flat, paced)) {
				int[] runs = runs(workers, phase.name, phase.count);
				lost += Arrays.stream(runs).filter((count) -> count == 0).count();
				ranTwice += Arrays.stream(runs).filter((count) -> count > 1).count();
			}
			long unexpected = 0;
			for (Peers worker : workers) {
				worker.send("COUNT flat");
				unexpected += Long.parseLong(worker.await("COUNTED", Duration.ofMinutes(1))[2]);
			}
			long[] lags = lags(workers, "paced");
			Map<String, Double> commands = new LinkedHashMap<>();
			long calls = 0;
			List<Map.Entry<String, long[]>> sorted = new ArrayList<>(after.entrySet());
			sorted.sort((a, b) -> Long.compare(delta(b.getValue(), before.get(b.getKey())),
					delta(a.getValue(), before.get(a.getKey()))));
			for (Map.Entry<String, long[]> entry : sorted) {
				long count = delta(entry.getValue(), before.get(entry.getKey()));
				calls += count;
				if (count > 0) {
					commands.put(entry.getKey(), count / (double) TASKS);
				}
			}
			for (Peers process : all) {
				process.stop();
			}
			progress.accept(String.format(java.util.Locale.ROOT,
					"queue-peers, %s: warm-up %d of %d ran, %.0f/s; flat out %d of %d, %.0f/s (enqueued %.0f/s); paced %d of %d,"
							+ " %d lags; %d lost, %d ran twice",
					peer, warm.done, warm.count, warm.perSecond(), flat.done, flat.count, flat.perSecond(),
					flat.enqueuesPerSecond(), paced.done, paced.count, lags.length, lost, ranTwice));
			return new Result(flat.perSecond(), flat.enqueuesPerSecond(), percentileMillis(lags, 50),
					percentileMillis(lags, 99), calls / (double) TASKS, (cpuAfter - cpuBefore) * 1e6 / TASKS, commands,
					lost, ranTwice, unexpected, TASKS);
		}
		finally {
			all.forEach(Peers::close);
		}
	}

	/**
	 * One worker instance with {@code queues} queues and no task, through a proxy that
	 * counts its requests: requests and commands per second over {@code millis}, after it
	 * has run for a few seconds.
	 */
	static Idle idle(Peer peer, LocalRedisServer redis, RedisCommands<String, String> control, int queues,
			long pollingInterval, long millis) {
		String queue = "qi-" + peer.name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 8);
		try (TcpProxy proxy = TcpProxy.to(redis);
				Peers worker = Peers.start(peer, proxy.port(), "worker", queue, queues, pollingInterval)) {
			worker.await("READY", Duration.ofMinutes(3));
			Measure.sleep(3000);
			Map<String, long[]> before = commandStats(control);
			long requests = proxy.requests();
			long start = System.nanoTime();
			Measure.sleep(millis);
			long requested = proxy.requests() - requests;
			Map<String, long[]> after = commandStats(control);
			double seconds = (System.nanoTime() - start) / 1e9;
			long calls = 0;
			Map<String, Double> commands = new LinkedHashMap<>();
			for (Map.Entry<String, long[]> entry : after.entrySet()) {
				long count = delta(entry.getValue(), before.get(entry.getKey()));
				calls += count;
				if (count > 0) {
					commands.put(entry.getKey(), count / seconds);
				}
			}
			worker.stop();
			return new Idle(requested / seconds, calls / seconds, commands);
		}
	}

	private static double percentileMillis(long[] micros, double percentile) {
		return (micros.length > 0) ? Stats.percentile(micros, percentile) / 1000.0 : Double.NaN;
	}

	private record Phase(String name, int count, long done, long startMicros, long producedMicros, long lastRunMicros) {

		double enqueuesPerSecond() {
			return this.count * 1e6 / (this.producedMicros - this.startMicros);
		}

		/** Tasks run per second; of those that ran when some did not in time. */
		double perSecond() {
			return this.done * 1e6 / (this.lastRunMicros - this.startMicros);
		}

	}

	/**
	 * Enqueue {@code count} tasks from the producer, flat out or paced at {@code rate}
	 * per second, and wait until the workers ran them all (or the drain timeout passed:
	 * the missing ones count as lost).
	 */
	private static Phase phase(Peers producer, List<Peers> workers, String name, int count, int rate) {
		for (Peers worker : workers) {
			worker.send("EXPECT " + name + " " + count);
			worker.await("EXPECTING", Duration.ofMinutes(1));
		}
		producer.send("PRODUCE " + name + " " + count + " " + rate);
		String[] produced = producer.await("PRODUCED", Duration.ofMinutes(5));
		long start = Long.parseLong(produced[0]);
		long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
		while (true) {
			long done = 0;
			long last = 0;
			for (Peers worker : workers) {
				worker.send("COUNT " + name);
				String[] counted = worker.await("COUNTED", Duration.ofMinutes(1));
				done += Long.parseLong(counted[0]);
				last = Math.max(last, Long.parseLong(counted[1]));
			}
			if (done >= count || System.nanoTime() > deadline) {
				return new Phase(name, count, done, start, Long.parseLong(produced[1]), last);
			}
			Measure.sleep(5);
		}
	}

	/** How often each task of a phase ran, over all workers. */
	private static int[] runs(List<Peers> workers, String phase, int count) {
		int[] runs = new int[count];
		for (Peers worker : workers) {
			worker.send("RUNS " + phase);
			String[] answer = worker.await("RUNS", Duration.ofMinutes(1));
			String digits = (answer.length > 0) ? answer[0] : "";
			for (int i = 0; i < Math.min(count, digits.length()); i++) {
				runs[i] += digits.charAt(i) - '0';
			}
		}
		return runs;
	}

	/** Enqueue-to-start lags (µs) of a phase's tasks, over all workers. */
	private static long[] lags(List<Peers> workers, String phase) {
		List<Long> lags = new ArrayList<>();
		for (Peers worker : workers) {
			worker.send("LAGS " + phase);
			String[] answer = worker.await("LAGS", Duration.ofMinutes(1));
			if (answer.length > 0 && !answer[0].isEmpty()) {
				for (String lag : answer[0].split(",")) {
					lags.add(Long.parseLong(lag));
				}
			}
		}
		return lags.stream().mapToLong(Long::longValue).toArray();
	}

	private static long delta(long[] after, long[] before) {
		return after[0] - ((before != null) ? before[0] : 0);
	}

	/**
	 * Calls and µs by command from {@code INFO commandstats}, INFO and CONFIG left out.
	 */
	static Map<String, long[]> commandStats(RedisCommands<String, String> control) {
		Map<String, long[]> stats = new HashMap<>();
		Pattern line = Pattern.compile("^cmdstat_([^:]+):calls=(\\d+),usec=(\\d+),.*$");
		for (String text : control.info("commandstats").split("\r?\n")) {
			Matcher matcher = line.matcher(text);
			if (matcher.matches() && !matcher.group(1).equals("info") && !matcher.group(1).startsWith("config")) {
				stats.put(matcher.group(1),
						new long[] { Long.parseLong(matcher.group(2)), Long.parseLong(matcher.group(3)) });
			}
		}
		return stats;
	}

	/** redis-server's CPU seconds so far, user and system. */
	private static double redisCpu(RedisCommands<String, String> control) {
		double seconds = 0;
		for (String text : control.info("cpu").split("\r?\n")) {
			if (text.startsWith("used_cpu_user:") || text.startsWith("used_cpu_sys:")) {
				seconds += Double.parseDouble(text.substring(text.indexOf(':') + 1).trim());
			}
		}
		return seconds;
	}

	/**
	 * The folder of the built {@code queue-peer} module: its classes and the class path
	 * it wrote.
	 */
	private static Path queuePeerTarget() {
		return Path.of(System.getProperty("benchmarks.queue-peer", "lock-benchmarks/queue-peer/target"));
	}

	private static String rqueueClassPath() {
		try {
			return queuePeerTarget().resolve("classes") + File.pathSeparator
					+ Files.readString(queuePeerTarget().resolve("classpath.txt"), StandardCharsets.UTF_8).trim();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The queue-peer module is not built (" + queuePeerTarget()
					+ "): run the benchmarks through Maven (-Pbenchmarks -pl lock-benchmarks -am)", ex);
		}
	}

	/** The version of an artifact on Rqueue's class path, "?" when not found. */
	static String rqueueVersion(String artifact) {
		try {
			Matcher matcher = Pattern.compile("/" + Pattern.quote(artifact) + "-([0-9][^/]*?)\\.jar")
				.matcher(rqueueClassPath());
			return matcher.find() ? matcher.group(1) : "?";
		}
		catch (UncheckedIOException ex) {
			return "?";
		}
	}

	static String rqueueVersion() {
		return rqueueVersion("rqueue-core");
	}

	/**
	 * A producer or worker process of one queue, talked to over stdin and stdout.
	 */
	static final class Peers implements AutoCloseable {

		private final Process process;

		private final PrintWriter input;

		private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

		private final List<String> seen = new ArrayList<>();

		private Peers(Process process) {
			this.process = process;
			this.input = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
			Thread reader = new Thread(() -> {
				try (BufferedReader out = new BufferedReader(
						new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
					String line;
					while ((line = out.readLine()) != null) {
						this.lines.add(line);
					}
				}
				catch (IOException ex) {
					// the process is gone
				}
			}, "queue-peer-" + process.pid());
			reader.setDaemon(true);
			reader.start();
		}

		/**
		 * Start a process of {@code peer}: the same JVM options for every queue.
		 */
		static Peers start(Peer peer, int port, String role, String queue, int queues, long rqueuePollingInterval) {
			List<String> command = new ArrayList<>(
					List.of(Path.of(System.getProperty("java.home")).resolve("bin").resolve("java").toString(),
							"-Xms512m", "-Xmx512m", "-XX:+UseParallelGC", "-cp"));
			if (peer == Peer.OURS) {
				command.addAll(List.of(System.getProperty("java.class.path"), OurQueuePeer.class.getName(),
						Integer.toString(port), role, queue, Integer.toString(queues), Integer.toString(WORKERS)));
			}
			else {
				List<String> names = new ArrayList<>(List.of(queue));
				for (int i = 2; i <= queues; i++) {
					names.add(queue + "-" + i);
				}
				command.addAll(List.of(rqueueClassPath(), "io.github.redislock.benchmarks.peer.RqueuePeer",
						Integer.toString(port), role, String.join(",", names), Integer.toString(WORKERS),
						Long.toString(rqueuePollingInterval)));
			}
			try {
				Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
				Peers peers = new Peers(process);
				Runtime.getRuntime().addShutdownHook(new Thread(peers::close));
				return peers;
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		void send(String line) {
			this.input.println(line);
		}

		/**
		 * Wait for the next line starting with {@code word}, skipping others.
		 * @return the line's words after the first
		 */
		String[] await(String word, Duration timeout) {
			long deadline = System.nanoTime() + timeout.toNanos();
			try {
				while (true) {
					long left = deadline - System.nanoTime();
					String line = (left > 0) ? this.lines.poll(left, TimeUnit.NANOSECONDS) : null;
					if (line == null) {
						throw new IllegalStateException("Queue process " + this.process.pid() + " (alive: "
								+ this.process.isAlive() + ") did not say " + word + " in " + timeout + "; it said: "
								+ this.seen.subList(Math.max(0, this.seen.size() - 5), this.seen.size()));
					}
					if (line.equals(word) || line.startsWith(word + " ")) {
						String rest = line.substring(word.length()).trim();
						return rest.isEmpty() ? new String[0] : rest.split(" ");
					}
					this.seen.add(line);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		/** Ask the process to shut its application down and end. */
		void stop() {
			send("STOP");
			try {
				await("STOPPED", Duration.ofSeconds(60));
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException | IllegalStateException ex) {
				close();
			}
		}

		@Override
		public void close() {
			if (this.process.isAlive()) {
				this.process.destroyForcibly();
			}
		}

	}

}
