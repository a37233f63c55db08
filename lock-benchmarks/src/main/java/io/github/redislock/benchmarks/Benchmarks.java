package io.github.redislock.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Runs every benchmark against a redis-server of its own, the columns interleaved round
 * by round, prints the tables and writes them into {@code docs/BENCHMARKS.md} between the
 * result markers.
 * <p>
 * Options: {@code --rounds N} (3), {@code --millis N} measured window (1500),
 * {@code --warm-up N} (500), {@code --only a,b} sections, {@code --write file},
 * {@code --transition-samples N} hand-offs per scenario of the {@code transitions}
 * section (50).
 */
public final class Benchmarks {

	private static final String START = "<!-- results:start -->";

	private static final String END = "<!-- results:end -->";

	private final int rounds;

	private final long millis;

	private final long warmUp;

	private final Set<String> only;

	private final Set<String> picked;

	private final int transitionSamples;

	private final LocalRedisServer redis;

	private final RedisCommands<String, String> control;

	private final Report report = new Report();

	private final Targets targets = new Targets();

	private final Charts charts;

	/** Charts drawn in this run, embedded ahead of the tables. */
	private final List<String> chartLinks = new ArrayList<>();

	private final Map<String, Column> columns = new LinkedHashMap<>();

	private ChildJvm child;

	private Benchmarks(int rounds, long millis, long warmUp, Set<String> only, Set<String> picked,
			int transitionSamples, LocalRedisServer redis, RedisCommands<String, String> control, Charts charts) {
		this.charts = charts;
		this.transitionSamples = transitionSamples;
		this.picked = picked;
		this.rounds = rounds;
		this.millis = millis;
		this.warmUp = warmUp;
		this.only = only;
		this.redis = redis;
		this.control = control;
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = new LinkedHashMap<>();
		for (int i = 0; i + 1 < args.length; i += 2) {
			options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
		}
		int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
		long millis = Long.parseLong(options.getOrDefault("millis", "1500"));
		long warmUp = Long.parseLong(options.getOrDefault("warm-up", "500"));
		Set<String> only = options.containsKey("only") ? Set.of(options.get("only").split(",")) : Set.of();
		Set<String> picked = options.containsKey("columns") ? Set.of(options.get("columns").split(",")) : Set.of();
		int transitionSamples = Integer.parseInt(options.getOrDefault("transition-samples", "50"));
		long started = System.nanoTime();
		try (LocalRedisServer redis = LocalRedisServer.start()) {
			// Interrupted runs stop their redis-server too.
			Runtime.getRuntime().addShutdownHook(new Thread(redis::close));
			RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				boolean rewrite = options.containsKey("write") && only.isEmpty() && picked.isEmpty();
				// A full run draws into the document's images; a partial one under
				// target/.
				Path chartFolder = rewrite
						? Path.of(options.get("write")).toAbsolutePath().getParent().resolve("images/benchmarks")
						: Path.of("lock-benchmarks/target/charts");
				Benchmarks benchmarks = new Benchmarks(rounds, millis, warmUp, only, picked, transitionSamples, redis,
						connection.sync(), new Charts(chartFolder));
				benchmarks.runAll();
				long minutes = Duration.ofNanos(System.nanoTime() - started).toMinutes();
				String results = benchmarks.header(connection.sync(), minutes) + benchmarks.summary()
						+ benchmarks.report;
				System.out.println(results);
				if (rewrite) {
					write(Path.of(options.get("write")), results);
				}
			}
			finally {
				client.shutdown();
			}
		}
		System.exit(0);
	}

	private static void write(Path file, String results) throws IOException {
		String document = Files.readString(file, StandardCharsets.UTF_8);
		int start = document.indexOf(START);
		int end = document.indexOf(END);
		if (start < 0 || end < start) {
			throw new IllegalStateException(file + " has no " + START + " ... " + END + " markers");
		}
		Files.writeString(file,
				document.substring(0, start + START.length()) + "\n" + results + "\n" + document.substring(end),
				StandardCharsets.UTF_8);
		System.out.println("Results written to " + file);
	}

	private String header(RedisCommands<String, String> redis, long minutes) throws IOException {
		String cpu = Files.readAllLines(Path.of("/proc/cpuinfo"))
			.stream()
			.filter((line) -> line.startsWith("model name"))
			.findFirst()
			.map((line) -> line.substring(line.indexOf(':') + 1).trim())
			.orElse("unknown CPU");
		String version = redis.info("server")
			.lines()
			.filter((line) -> line.startsWith("redis_version:"))
			.findFirst()
			.map((line) -> line.substring("redis_version:".length()))
			.orElse("?");
		return "Run of " + LocalDate.now() + ": " + Runtime.getRuntime().availableProcessors() + " cores (" + cpu
				+ "), Java " + System.getProperty("java.version") + ", redis-server " + version
				+ " on loopback (started by the benchmark, no persistence), " + this.rounds + " rounds, " + this.millis
				+ " ms measured after " + this.warmUp + " ms warm-up per cell, " + minutes
				+ " minutes in all. Cells: median over rounds (min–max), **ratio** to the baseline of the same"
				+ " round.\n";
	}

	/**
	 * The targets table and the charts, ahead of the sections' tables.
	 */
	private String summary() {
		Report summary = new Report();
		if (!this.targets.isEmpty()) {
			this.targets.print(summary);
		}
		if (!this.chartLinks.isEmpty()) {
			summary.heading("Charts");
			this.chartLinks.forEach(summary::paragraph);
		}
		return summary.toString();
	}

	/**
	 * Draw a chart and embed it in the summary; a chart that cannot be drawn (no fonts,
	 * say) is reported in its place and the run goes on.
	 */
	private void chart(String alt, ChartDrawing drawing) {
		try {
			this.chartLinks.add("![" + alt + "](" + drawing.draw(this.charts) + ")");
		}
		catch (Exception | Error ex) {
			ex.printStackTrace();
			this.chartLinks.add("(chart '" + alt + "' could not be drawn in this run: `" + ex + "`)");
		}
	}

	private interface ChartDrawing {

		String draw(Charts charts) throws Exception;

	}

	/**
	 * Lines of a grid whose headings begin with a number (thread counts): x that number,
	 * y the median over rounds.
	 */
	private static List<Charts.Line> lines(Report.Grid grid) {
		List<Charts.Line> lines = new ArrayList<>();
		grid.rows.forEach((row, cells) -> {
			List<Double> x = new ArrayList<>();
			List<Double> y = new ArrayList<>();
			cells.forEach((heading, series) -> {
				if (!series.values.isEmpty()) {
					x.add(Double.parseDouble(heading.replaceAll("^([0-9.]+).*$", "$1")));
					y.add(Stats.median(series.values));
				}
			});
			lines.add(new Charts.Line(row, x, y));
		});
		return lines;
	}

	/** The per-round ratios of one cell of a grid. */
	private static List<Double> ratios(Report.Grid grid, String row, String heading) {
		Map<String, Report.Series> cells = grid.rows.get(row);
		Report.Series series = (cells != null) ? cells.get(heading) : null;
		return (series != null) ? series.ratios : List.of();
	}

	/** The per-round values of one cell of a grid. */
	private static List<Double> values(Report.Grid grid, String row, String heading) {
		Map<String, Report.Series> cells = grid.rows.get(row);
		Report.Series series = (cells != null) ? cells.get(heading) : null;
		return (series != null) ? series.values : List.of();
	}

	private boolean section(String name) {
		return this.only.isEmpty() || this.only.contains(name);
	}

	private Column column(String id) {
		return this.columns.computeIfAbsent(id, (key) -> Columns.create(key, this.redis.port()));
	}

	private List<String> rotated(List<String> ids, int by) {
		List<String> order = new ArrayList<>(ids.stream()
			.filter((id) -> this.picked.isEmpty() || this.picked.contains(id) || id.startsWith("raw")
					|| !Columns.ALL.contains(id))
			.toList());
		for (int i = 0; i < by % ids.size(); i++) {
			order.add(order.remove(0));
		}
		return order;
	}

	private ChildJvm child() {
		if (this.child == null) {
			ChildJvm child = ChildJvm.start(List.of("-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"), BenchmarkChild.class,
					Integer.toString(this.redis.port()));
			Runtime.getRuntime().addShutdownHook(new Thread(child::close));
			this.child = child;
			this.child.await("READY", Duration.ofMinutes(1));
		}
		return this.child;
	}

	private void runAll() {
		Map<String, Section> sections = new LinkedHashMap<>();
		sections.put("uncontended", this::uncontended);
		sections.put("latency", this::latency);
		sections.put("contended", this::contended);
		sections.put("processes", this::contendedAcrossProcesses);
		sections.put("handoff", this::handOff);
		sections.put("costs", this::costs);
		sections.put("commands", this::commands);
		sections.put("watchdog", this::watchdog);
		sections.put("read", this::readLocks);
		sections.put("redlock", this::redLock);
		sections.put("queue", this::queue);
		sections.put("queue-peers", this::queuePeers);
		sections.put("memory", this::memory);
		sections.put("replicas", this::replicas);
		sections.put("async", this::async);
		sections.put("semaphore", this::semaphore);
		sections.put("scale", this::scale);
		sections.put("servers", this::servers);
		// Last: it cuts connections and fails over servers (of its own).
		sections.put("transitions", this::transitions);
		try {
			sections.forEach((name, section) -> {
				if (section(name)) {
					guarded(name, section);
				}
			});
		}
		finally {
			this.columns.values().forEach(Column::close);
			if (this.child != null) {
				this.child.close();
			}
		}
	}

	private interface Section {

		void run() throws Exception;

	}

	/**
	 * Run a section; a failure is reported in its place and the run goes on.
	 */
	private void guarded(String name, Section section) {
		try {
			section.run();
		}
		catch (Exception | AssertionError ex) {
			ex.printStackTrace();
			this.report.heading(name + ": failed");
			StringBuilder causes = new StringBuilder("`" + ex + "`");
			for (Throwable cause = ex.getCause(); cause != null
					&& cause != cause.getCause(); cause = cause.getCause()) {
				causes.append(", caused by `").append(cause).append("`");
			}
			this.report.paragraph("This section failed in this run: " + causes + ".");
		}
	}

	private void progress(String what) {
		System.err.println("[bench] " + what);
	}

	// Replica acknowledgement: a replica of the benchmark's Redis, min-replicas-acked=1.

	private void replicas() throws Exception {
		int iterations = 2000;
		try (LocalRedisServer replica = LocalRedisServer.start("--replicaof", "127.0.0.1",
				Integer.toString(this.redis.port()))) {
			this.control.set("replication-probe", "1");
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			// A replica answers LOADING (an error) while it loads the master's data set,
			// which
			// the earlier sections may have made large.
			String seen = null;
			while (!"1".equals(seen)) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("replica did not catch up within 30 s");
				}
				Thread.sleep(50);
				try {
					seen = replica.template().opsForValue().get("replication-probe");
				}
				catch (org.springframework.dao.DataAccessException loading) {
					seen = null;
				}
			}
			Report.Grid grid = new Report.Grid();
			for (int r = 0; r < this.rounds; r++) {
				int round = r;
				Map<String, long[]> acquire = new LinkedHashMap<>();
				Map<String, long[]> application = new LinkedHashMap<>();
				for (int ackedReplicas : (round % 2 == 0) ? new int[] { 0, 1 } : new int[] { 1, 0 }) {
					int acked = ackedReplicas;
					progress("replicas round " + round + ", min-replicas-acked " + acked);
					org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory factory = Columns
						.connectionFactory(this.redis.port());
					io.github.redislock.internal.lock.DefaultRedisLockTemplate template = new io.github.redislock.internal.lock.DefaultRedisLockTemplate(
							factory, io.github.redislock.internal.lock.LockSettings.DEFAULTS
								.withReplicaAcknowledgement(acked, Duration.ofMillis(100)));
					org.springframework.data.redis.core.StringRedisTemplate app = new org.springframework.data.redis.core.StringRedisTemplate(
							factory);
					try {
						io.github.redislock.core.RedisLock lock = template.getLock("r:" + round + ":" + acked);
						long[] times = new long[iterations];
						for (int i = -500; i < iterations; i++) {
							long t0 = System.nanoTime();
							lock.lock();
							long t1 = System.nanoTime();
							lock.unlock();
							if (i >= 0) {
								times[i] = t1 - t0;
							}
						}
						acquire.put(acked + "", times);
						// The application's own GETs on the same factory while four
						// threads
						// keep taking such locks.
						java.util.concurrent.ExecutorService lockers = java.util.concurrent.Executors
							.newFixedThreadPool(4);
						java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(
								true);
						for (int t = 0; t < 4; t++) {
							int thread = t;
							lockers.execute(() -> {
								io.github.redislock.core.RedisLock own = template
									.getLock("r:" + round + ":" + acked + ":" + thread);
								while (running.get()) {
									own.lock();
									own.unlock();
								}
							});
						}
						long[] gets = new long[iterations];
						for (int i = -500; i < iterations; i++) {
							long t0 = System.nanoTime();
							app.opsForValue().get("replication-probe");
							if (i >= 0) {
								gets[i] = System.nanoTime() - t0;
							}
						}
						running.set(false);
						lockers.shutdown();
						lockers.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
						application.put(acked + "", gets);
					}
					finally {
						template.destroy();
						factory.destroy();
					}
				}
				for (String acked : List.of("0", "1")) {
					String row = acked.equals("0") ? "starter, no acknowledgement" : "starter, min-replicas-acked=1";
					grid.at(row, "acquire p50 µs")
						.add(Stats.percentile(acquire.get(acked), 50) / 1000,
								Stats.percentile(acquire.get("0"), 50) / 1000);
					grid.at(row, "acquire p99 µs")
						.add(Stats.percentile(acquire.get(acked), 99) / 1000,
								Stats.percentile(acquire.get("0"), 99) / 1000);
					grid.at(row, "app GET p50 µs, 4 threads locking")
						.add(Stats.percentile(application.get(acked), 50) / 1000,
								Stats.percentile(application.get("0"), 50) / 1000);
					grid.at(row, "app GET p99 µs, 4 threads locking")
						.add(Stats.percentile(application.get(acked), 99) / 1000,
								Stats.percentile(application.get("0"), 99) / 1000);
				}
			}
			this.report.heading("Replica acknowledgement: acquire latency and the application's own commands"
					+ " meanwhile (one local replica, " + iterations + " samples per round)");
			this.report.grid("", grid, true, 1);
			this.report.paragraph("Acknowledged acquisitions run the script and `WAIT` on a pooled connection of"
					+ " their own (at most " + 8 + " idle), so the application's GETs on the shared connection do"
					+ " not queue behind `WAIT`.");
		}
	}

	// Semaphores: the starter's against Redisson's RPermitExpirableSemaphore.

	private void semaphore() throws Exception {
		Report.Grid grid = new Report.Grid();
		String uncontended = "uncontended, 1 thread";
		String uncontended16 = "uncontended, 16 threads (own semaphores)";
		String contended = "4 permits, 64 threads";
		try (SemaphoreBench bench = new SemaphoreBench(this.redis.port())) {
			for (int round = 0; round < this.rounds; round++) {
				Map<String, Map<String, Double>> results = new LinkedHashMap<>();
				List<String> columns = (round % 2 == 0) ? List.of(SemaphoreBench.STARTER, SemaphoreBench.REDISSON)
						: List.of(SemaphoreBench.REDISSON, SemaphoreBench.STARTER);
				for (String column : columns) {
					progress("semaphore round " + round + ", " + column);
					String prefix = "s:" + round + ":" + column.hashCode();
					Duration window = Duration.ofMillis(this.millis);
					bench.pairsPerSecond(column, prefix + ":warm", 1, 1, true, Duration.ofMillis(this.warmUp));
					Map<String, Double> cells = new LinkedHashMap<>();
					cells.put(uncontended, bench.pairsPerSecond(column, prefix + ":u1", 1, 1, true, window));
					cells.put(uncontended16, bench.pairsPerSecond(column, prefix + ":u16", 1, 16, true, window));
					cells.put(contended, bench.pairsPerSecond(column, prefix + ":c", 4, 64, false, window));
					results.put(column, cells);
				}
				for (String column : List.of(SemaphoreBench.STARTER, SemaphoreBench.REDISSON)) {
					for (String heading : List.of(uncontended, uncontended16, contended)) {
						grid.at(column, heading)
							.add(results.get(column).get(heading), results.get(SemaphoreBench.REDISSON).get(heading));
					}
				}
			}
		}
		this.report.heading(
				"Semaphores: acquire + release pairs per second (ratio to Redisson's" + " RPermitExpirableSemaphore)");
		this.report.grid("", grid, true, 0);
		this.report.paragraph("Both with a 30 s lease per permit; every run checks that no more holders than permits"
				+ " were inside at once.");
		for (String heading : List.of(uncontended, uncontended16, contended)) {
			this.targets.atLeast("Semaphore pairs/s, " + heading + ": ≥ 1.5× Redisson",
					ratios(grid, SemaphoreBench.STARTER, heading), 1.5, "×");
		}
	}

	// Asynchronous: the reactive template against Redisson's RLockReactive.

	private void async() throws Exception {
		Report.Grid throughput = new Report.Grid();
		Report.Grid handOff = new Report.Grid();
		int samples = 200;
		try (AsyncBench bench = new AsyncBench(this.redis.port())) {
			for (int round = 0; round < this.rounds; round++) {
				Map<String, Double> pairs = new LinkedHashMap<>();
				Map<String, long[]> latencies = new LinkedHashMap<>();
				List<String> columns = (round % 2 == 0) ? List.of(AsyncBench.STARTER, AsyncBench.REDISSON)
						: List.of(AsyncBench.REDISSON, AsyncBench.STARTER);
				for (String column : columns) {
					progress("async round " + round + ", " + column);
					String prefix = "a:" + round + ":" + column.hashCode();
					bench.pairsPerSecond(column, prefix + ":warm", 1000, Duration.ofMillis(this.warmUp));
					pairs.put(column, bench.pairsPerSecond(column, prefix, 1000, Duration.ofMillis(this.millis)));
					bench.handOffNanos(column, prefix + ":h:warm", 20);
					latencies.put(column, bench.handOffNanos(column, prefix + ":h", samples));
				}
				for (String column : List.of(AsyncBench.STARTER, AsyncBench.REDISSON)) {
					throughput.at(column, "pairs/s, 1,000 in flight")
						.add(pairs.get(column), pairs.get(AsyncBench.REDISSON));
					handOff.at(column, "hand-off p50 µs")
						.add(Stats.percentile(latencies.get(column), 50) / 1000,
								Stats.percentile(latencies.get(AsyncBench.REDISSON), 50) / 1000);
					handOff.at(column, "hand-off p99 µs")
						.add(Stats.percentile(latencies.get(column), 99) / 1000,
								Stats.percentile(latencies.get(AsyncBench.REDISSON), 99) / 1000);
				}
			}
		}
		this.report.heading("Asynchronous locks: uncontended pairs per second with 1,000 in flight, and hand-off"
				+ " latency in one process (ratio to Redisson's RLockReactive)");
		this.report.grid("", throughput, true, 0);
		this.report.grid("", handOff, true, 1);
		this.report.paragraph("Uncontended: `ReactiveRedisLockTemplate.execute` and `RLockReactive.tryLock`+`unlock`"
				+ " on own keys, 1,000 subscribed at a time, no thread per pair. Hand-off: one key, the waiter"
				+ " subscribed before the holder releases; from the release call to the waiter's acquisition, "
				+ samples + " samples per round.");
	}

	// Uncontended: own key per thread.

	private void uncontended() {
		List<Integer> threadCounts = List.of(1, 4, 16, 64);
		Report.Grid grid = new Report.Grid();
		for (int round = 0; round < this.rounds; round++) {
			for (int threads : threadCounts) {
				Map<String, Double> results = new LinkedHashMap<>();
				for (String id : rotated(Columns.ALL, round + threads)) {
					progress("uncontended round " + round + ", " + threads + " threads, " + id);
					results.put(id, pairsPerSecond(column(id), threads, "u:" + id + ":" + round + ":" + threads + ":"));
				}
				double baseline = results.get("raw");
				results.forEach((id, value) -> grid.at(Columns.title(id), threads(threads)).add(value, baseline));
			}
		}
		this.report.heading("Uncontended lock + unlock pairs per second (own key per thread)");
		this.report.grid("", grid, true, 0);
		for (String id : List.of("starter-watchdog", "starter-fixed")) {
			for (int threads : threadCounts) {
				this.targets.atLeast(
						"Uncontended pairs/s, " + Columns.title(id) + ", " + threads(threads)
								+ ": ≥ 0.95× the raw floor",
						ratios(grid, Columns.title(id), threads(threads)), 0.95, "×");
			}
		}
		chart("Uncontended pairs per second against threads",
				(charts) -> charts.lines("uncontended.png", "Uncontended lock + unlock pairs per second",
						"threads (own key each)", "pairs per second", lines(grid), true, false));
	}

	/**
	 * Uncontended lock + unlock pairs per second, each thread on a key of its own.
	 */
	private double pairsPerSecond(Column column, int threads, String keyPrefix) {
		return Measure.run(threads, this.warmUp, this.millis, (t) -> {
			Column.Locker locker = column.locker(keyPrefix + t);
			return () -> {
				locker.lock();
				locker.unlock();
			};
		}).perSecond();
	}

	private static String threads(int threads) {
		return threads + ((threads == 1) ? " thread" : " threads");
	}

	// Single-thread latency of acquire and release.

	private void latency() {
		Report.Grid grid = new Report.Grid();
		int iterations = 3000;
		for (int round = 0; round < this.rounds; round++) {
			Map<String, long[][]> samples = new LinkedHashMap<>();
			for (String id : rotated(Columns.ALL, round)) {
				progress("latency round " + round + ", " + id);
				Column.Locker locker = column(id).locker("l:" + id + ":" + round);
				for (int i = 0; i < 500; i++) {
					locker.lock();
					locker.unlock();
				}
				long[] acquire = new long[iterations];
				long[] release = new long[iterations];
				for (int i = 0; i < iterations; i++) {
					long t0 = System.nanoTime();
					locker.lock();
					long t1 = System.nanoTime();
					locker.unlock();
					long t2 = System.nanoTime();
					acquire[i] = t1 - t0;
					release[i] = t2 - t1;
				}
				samples.put(id, new long[][] { acquire, release });
			}
			long[][] raw = samples.get("raw");
			samples.forEach((id, values) -> {
				String row = Columns.title(id);
				grid.at(row, "acquire p50 µs")
					.add(Stats.percentile(values[0], 50) / 1000, Stats.percentile(raw[0], 50) / 1000);
				grid.at(row, "acquire p99 µs")
					.add(Stats.percentile(values[0], 99) / 1000, Stats.percentile(raw[0], 99) / 1000);
				grid.at(row, "release p50 µs")
					.add(Stats.percentile(values[1], 50) / 1000, Stats.percentile(raw[1], 50) / 1000);
				grid.at(row, "release p99 µs")
					.add(Stats.percentile(values[1], 99) / 1000, Stats.percentile(raw[1], 99) / 1000);
			});
		}
		this.report.heading("Single-thread acquire and release latency (" + iterations + " pairs per round)");
		this.report.grid("", grid, true, 1);
		for (String id : List.of("starter-watchdog", "starter-fixed")) {
			for (String heading : List.of("acquire p50 µs", "release p50 µs")) {
				this.targets.atMost("Single-thread " + heading.replace(" µs", "") + ", " + Columns.title(id)
						+ ": ≤ 1.05× the floor", ratios(grid, Columns.title(id), heading), 1.05, "×");
			}
		}
	}

	// Contended, within one process: a plain int counter.

	private static final List<String> WAITING = List.of("starter-watchdog", "starter-fixed", "redisson", "si-spin",
			"si-pubsub", "raw-pubsub", "raw-scripts-pubsub");

	private void contended() {
		Report.Grid grid = new Report.Grid();
		Report.Grid versusRedisson = new Report.Grid();
		List<String> lost = new ArrayList<>();
		for (int round = 0; round < this.rounds; round++) {
			for (int threads : List.of(4, 16, 64)) {
				Map<String, Double> results = new LinkedHashMap<>();
				for (String id : rotated(WAITING, round + threads)) {
					progress("contended round " + round + ", " + threads + " threads, " + id);
					Column column = column(id);
					String key = "c:" + id + ":" + round + ":" + threads;
					int[] counter = new int[1];
					Measure.Run run = Measure.run(threads, this.warmUp, this.millis, (t) -> {
						Column.Locker locker = column.locker(key);
						return () -> {
							locker.lock();
							try {
								counter[0]++;
							}
							finally {
								locker.unlock();
							}
						};
					});
					if (counter[0] != run.totalOps()) {
						lost.add(id + " at " + threads + " threads: " + (run.totalOps() - counter[0]));
					}
					results.put(id, run.perSecond());
				}
				double baseline = results.get("raw-pubsub");
				results.forEach((id, value) -> grid.at(Columns.title(id), threads + " threads").add(value, baseline));
				addVersusRedisson(versusRedisson, results, threads);
			}
		}
		contendedTargets("one process", versusRedisson, lost);
		chart("Contended pairs per second against threads, one process",
				(charts) -> charts.lines("contended.png", "Contended pairs per second on one key, one process",
						"threads", "pairs per second", lines(grid), true, false));
		this.report.heading("Contended pairs per second on one key, one process");
		this.report.paragraph("Each pair increments a plain `int` under the lock; lost updates: "
				+ (lost.isEmpty() ? "**none**." : String.join("; ", lost)));
		this.report.grid("", grid, true, 0);
	}

	/**
	 * Add a round's ratios of the starter's columns to Redisson's, when it ran.
	 */
	private static void addVersusRedisson(Report.Grid versusRedisson, Map<String, Double> results, int threads) {
		Double redisson = results.get("redisson");
		if (redisson != null) {
			for (String id : List.of("starter-watchdog", "starter-fixed")) {
				versusRedisson.at(Columns.title(id), threads + " threads").add(results.get(id), redisson);
			}
		}
	}

	/**
	 * The contended targets: ≥ 1.3× Redisson at 16 and 64 threads, no lost update.
	 */
	private void contendedTargets(String where, Report.Grid versusRedisson, List<String> lost) {
		for (String id : List.of("starter-watchdog", "starter-fixed")) {
			for (int threads : List.of(16, 64)) {
				this.targets.atLeast(
						"Contended pairs/s, " + where + ", " + Columns.title(id) + ", " + threads
								+ " threads: ≥ 1.3× Redisson",
						ratios(versusRedisson, Columns.title(id), threads + " threads"), 1.3, "×");
			}
		}
		this.targets.record("No lost update under contention, " + where,
				lost.isEmpty() ? "none" : String.join("; ", lost), lost.isEmpty());
	}

	// Contended across two processes: a non-atomic GET/SET counter in Redis.

	private void contendedAcrossProcesses() {
		Report.Grid grid = new Report.Grid();
		Report.Grid versusRedisson = new Report.Grid();
		List<String> lost = new ArrayList<>();
		ChildJvm child = child();
		for (int round = 0; round < this.rounds; round++) {
			for (int threads : List.of(4, 16, 64)) {
				Map<String, Double> results = new LinkedHashMap<>();
				for (String id : rotated(WAITING, round + threads)) {
					progress("two processes round " + round + ", " + threads + " threads, " + id);
					Column column = column(id);
					child.send("PREPARE " + id);
					child.await("PREPARED", Duration.ofMinutes(1));
					String key = "p:" + id + ":" + round + ":" + threads;
					String counterKey = key + ":counter";
					int half = threads / 2;
					child.send("CONTEND " + id + " " + half + " " + this.warmUp + " " + this.millis + " " + key + " "
							+ counterKey);
					Measure.Run mine = Workloads.contendAcrossProcesses(column, half, this.warmUp, this.millis, key,
							counterKey, this.control);
					String[] theirs = child.await("CONTENDED", Duration.ofMinutes(5));
					long theirWindow = Long.parseLong(theirs[0]);
					long theirTotal = Long.parseLong(theirs[1]);
					long theirNanos = Long.parseLong(theirs[2]);
					String counted = this.control.get(counterKey);
					long expected = mine.totalOps() + theirTotal;
					if (counted == null || Long.parseLong(counted) != expected) {
						lost.add(id + " at " + threads + " threads: " + counted + " of " + expected);
					}
					results.put(id, mine.perSecond() + theirWindow * 1e9 / theirNanos);
				}
				double baseline = results.get("raw-pubsub");
				results.forEach((id, value) -> grid.at(Columns.title(id), threads + " threads").add(value, baseline));
				addVersusRedisson(versusRedisson, results, threads);
			}
		}
		contendedTargets("two processes", versusRedisson, lost);
		this.report.heading("Contended pairs per second on one key, two processes (half the threads each)");
		this.report.paragraph("Each pair reads and writes a counter in Redis (GET, then SET) under the lock;"
				+ " lost updates: " + (lost.isEmpty() ? "**none**." : String.join("; ", lost)));
		this.report.grid("", grid, true, 0);
	}

	// Hand-off latency between two processes.

	private void handOff() {
		Report.Grid grid = new Report.Grid();
		Report.Grid versusSi = new Report.Grid();
		Map<String, List<long[]>> pooled = new LinkedHashMap<>();
		ChildJvm child = child();
		for (int round = 0; round < this.rounds; round++) {
			Map<String, long[]> latencies = new LinkedHashMap<>();
			for (String id : rotated(WAITING, round)) {
				progress("hand-off round " + round + ", " + id);
				int samples = id.equals("si-spin") ? 24 : 210;
				int skip = id.equals("si-spin") ? 4 : 10;
				child.send("PREPARE " + id);
				child.await("PREPARED", Duration.ofMinutes(1));
				String key = "h:" + id + ":" + round;
				String turn = key + ":turn";
				Column.Locker locker = column(id).locker(key);
				locker.lock();
				child.send("HANDOFF " + id + " " + samples + " " + key + " " + turn);
				long[] mine = Workloads.handOff(locker, true, samples, turn, this.control);
				long[] theirs = Arrays.stream(child.await("HANDED", Duration.ofMinutes(5)))
					.mapToLong(Long::parseLong)
					.toArray();
				long[] values = new long[samples - skip];
				for (int i = skip; i < samples; i++) {
					// Even rounds: we release, they acquire; odd rounds the other way.
					values[i - skip] = (i % 2 == 0) ? theirs[i] - mine[i] : mine[i] - theirs[i];
				}
				latencies.put(id, values);
			}
			long[] baseline = latencies.get("raw-pubsub");
			latencies.forEach((id, values) -> {
				grid.at(Columns.title(id), "p50 µs").add(Stats.percentile(values, 50), Stats.percentile(baseline, 50));
				grid.at(Columns.title(id), "p99 µs").add(Stats.percentile(values, 99), Stats.percentile(baseline, 99));
				pooled.computeIfAbsent(id, (key) -> new ArrayList<>()).add(values);
			});
			long[] si = latencies.get("si-pubsub");
			for (String id : List.of("starter-watchdog", "starter-fixed")) {
				long[] values = latencies.get(id);
				if (values != null && si != null) {
					versusSi.at(Columns.title(id), "p50").add(Stats.percentile(values, 50), Stats.percentile(si, 50));
					versusSi.at(Columns.title(id), "p99").add(Stats.percentile(values, 99), Stats.percentile(si, 99));
				}
			}
		}
		for (String id : List.of("starter-watchdog", "starter-fixed")) {
			String row = Columns.title(id);
			this.targets.atMost("Hand-off p50, " + row + ": ≤ 1.0× the pub/sub floor", ratios(grid, row, "p50 µs"), 1.0,
					"×");
			this.targets.atMost("Hand-off p50, " + row + ": below Spring Integration's pub/sub lock (ratio < 1)",
					ratios(versusSi, row, "p50"), 0.9999, "×");
			this.targets.atMost("Hand-off p99, " + row + ": ≤ 1.0× the pub/sub floor", ratios(grid, row, "p99 µs"), 1.0,
					"×");
			this.targets.atMost("Hand-off p99, " + row + ": below Spring Integration's pub/sub lock (ratio < 1)",
					ratios(versusSi, row, "p99"), 0.9999, "×");
		}
		chart("Hand-off latency distribution per column", (charts) -> {
			List<Charts.Line> curves = new ArrayList<>();
			pooled.forEach((id, rounds) -> {
				if (id.equals("si-spin")) {
					// Its 100 ms poll would flatten every other curve.
					return;
				}
				long[] all = rounds.stream().flatMapToLong(Arrays::stream).sorted().toArray();
				List<Double> x = new ArrayList<>();
				List<Double> y = new ArrayList<>();
				for (double p : new double[] { 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9 }) {
					x.add(p);
					// A waiter can return before the holder's unlock does: drawn at 1 µs.
					y.add(Math.max(1, Stats.percentile(all, p)));
				}
				curves.add(new Charts.Line(Columns.title(id), x, y));
			});
			return charts.lines("handoff.png", "Hand-off latency between two processes, by percentile", "percentile",
					"µs (log scale; under 1 µs drawn at 1)", curves, false, true);
		});
		this.report.heading("Hand-off latency between two processes (holder's unlock returns → waiter's lock returns)");
		this.report.paragraph("200 hand-offs per round and column (20 for the spin lock, which polls every 100 ms);"
				+ " wall-clock microseconds, both processes on this machine.");
		this.report.grid("", grid, true, 0);
	}

	// The server matrix: the same acquire and release on each server the tests run on.

	private void servers() throws Exception {
		Map<String, String> servers = new LinkedHashMap<>();
		// The run's own server program (REDIS_SERVER, else the PATH's), then those that
		// .ci/build-servers built.
		servers.put("tests' default", null);
		for (String name : List.of("redis-8", "valkey-9")) {
			LocalRedisServer.builtServer(name).ifPresent((binary) -> servers.put(name, binary));
		}
		int locks = 2000;
		List<List<String>> costs = new ArrayList<>();
		Report.Grid grid = new Report.Grid();
		for (Map.Entry<String, String> entry : servers.entrySet()) {
			try (LocalRedisServer server = (entry.getValue() != null) ? LocalRedisServer.startProgram(entry.getValue())
					: LocalRedisServer.start();
					ServerBench.Connection control = ServerBench.Connection.open(server.port());
					ServerBench.Connection floor = ServerBench.Connection.open(server.port())) {
				String version = ServerBench.version(control.sync());
				progress("servers, " + version);
				boolean delIfEq = ServerBench.hasDelIfEq(control.sync());
				Map<String, Column> columns = new LinkedHashMap<>();
				columns.put("starter-watchdog", Columns.create("starter-watchdog", server.port()));
				columns.put("raw", Columns.create("raw", server.port()));
				try {
					for (Map.Entry<String, Column> column : columns.entrySet()) {
						String id = column.getKey();
						costs.add(row(version, Columns.title(id), ServerBench.cost(id, control.sync(),
								ServerBench.lockers(locks, (i) -> column.getValue().locker("sv:" + id + ":" + i)))));
					}
					if (delIfEq) {
						costs.add(row(version, "raw floor, release by DELIFEQ",
								ServerBench.cost("delifeq", control.sync(), ServerBench.lockers(locks,
										(i) -> ServerBench.delIfEqLocker(floor.sync(), "sv:delifeq:" + i)))));
					}
					for (int round = 0; round < this.rounds; round++) {
						Map<String, Double> results = new LinkedHashMap<>();
						for (String id : rotated(List.copyOf(columns.keySet()), round)) {
							results.put(Columns.title(id),
									pairsPerSecond(columns.get(id), 1, "sp:" + id + ":" + round + ":"));
						}
						if (delIfEq) {
							Column.Locker locker = ServerBench.delIfEqLocker(floor.sync(), "sp:delifeq:" + round);
							results.put("raw floor, release by DELIFEQ",
									Measure.run(1, this.warmUp, this.millis, (t) -> () -> {
										locker.lock();
										locker.unlock();
									}).perSecond());
						}
						double baseline = results.get(Columns.title("raw"));
						results.forEach((title, value) -> grid.at(title, version).add(value, baseline));
					}
				}
				finally {
					columns.values().forEach(Column::close);
				}
			}
		}
		this.report.heading("The same locks on each server of the test matrix");
		this.report.paragraph("Each server started by the benchmark on loopback, one after the other: Redis time (µs,"
				+ " from `INFO commandstats`, scripts' time where scripts ran) and commands Redis ran per uncontended"
				+ " acquire and release, means over " + locks + " locks; then single-thread lock + unlock pairs per"
				+ " second, ratio to the raw floor (`SET NX PX`, release by a compare-and-delete script) of the same"
				+ " server and round. Where the server has Valkey 9's `DELIFEQ`, the floor is also measured with it as"
				+ " its release: the cheapest compare-and-delete there is.");
		this.report.table("server",
				List.of("column", "acquire Redis µs", "release Redis µs", "acquire commands", "release commands"),
				costs);
		this.report.grid("", grid, true, 0);
	}

	private static List<String> row(String server, String column, ServerBench.Cost cost) {
		return List.of(server, column, String.format(Locale.ROOT, "%.2f", cost.acquireMicros()),
				String.format(Locale.ROOT, "%.2f", cost.releaseMicros()),
				String.format(Locale.ROOT, "%.2f", cost.acquireCommands()),
				String.format(Locale.ROOT, "%.2f", cost.releaseCommands()));
	}

	// Where a pair's time goes: client CPU, Redis CPU and commands per pair (issue #34).

	/**
	 * What one cell of the costs section measured, per lock + unlock pair in the measured
	 * window.
	 */
	private record PairCost(double pairsPerSecond, double clientCpuMicros, double redisCpuMicros, double commands,
			double redisBusy) {
	}

	/**
	 * Pairs per second with what each pair cost: this JVM's CPU (every thread of it: the
	 * callers, Lettuce's and the engine's threads, GC and JIT), redis-server's CPU
	 * ({@code INFO cpu}) and the commands it ran ({@code INFO commandstats}, scripts'
	 * inner commands too); and how busy Redis was (its CPU seconds per second of the
	 * window).
	 */
	private PairCost pairCost(Column column, int threads, boolean oneKey, String keyPrefix) {
		return pairCost(threads, (t) -> {
			Column.Locker locker = column.locker(oneKey ? keyPrefix : keyPrefix + t);
			return () -> {
				locker.lock();
				locker.unlock();
			};
		});
	}

	/**
	 * As {@link #pairCost(Column, int, boolean, String)}, for any pair: {@code pairFor}
	 * gives thread {@code t} its pair.
	 */
	private PairCost pairCost(int threads, java.util.function.IntFunction<Runnable> pairFor) {
		java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory
			.getOperatingSystemMXBean();
		if (!(os instanceof com.sun.management.OperatingSystemMXBean process)) {
			throw new IllegalStateException("This JVM does not report its process CPU time");
		}
		long[] cpu = new long[2];
		double[] redisCpu = new double[2];
		long[] calls = new long[2];
		Measure.Run run = Measure.run(threads, this.warmUp, this.millis, pairFor::apply, new Measure.Window() {

			@Override
			public void opened() {
				calls[0] = ServerBench.stats(Benchmarks.this.control)[0];
				redisCpu[0] = redisCpuSeconds();
				cpu[0] = process.getProcessCpuTime();
			}

			@Override
			public void closed() {
				cpu[1] = process.getProcessCpuTime();
				redisCpu[1] = redisCpuSeconds();
				calls[1] = ServerBench.stats(Benchmarks.this.control)[0];
			}

		});
		double pairs = Math.max(1, run.windowOps());
		return new PairCost(run.perSecond(), (cpu[1] - cpu[0]) / 1000.0 / pairs,
				(redisCpu[1] - redisCpu[0]) * 1e6 / pairs, (calls[1] - calls[0]) / pairs,
				(redisCpu[1] - redisCpu[0]) * 1e9 / run.windowNanos());
	}

	private double redisCpuSeconds() {
		double seconds = 0;
		for (String line : this.control.info("cpu").split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return seconds;
	}

	private void costs() {
		record Scenario(String title, int threads, boolean oneKey, List<String> ids) {
		}
		List<String> alone = List.of("starter-watchdog", "starter-fixed", "redisson", "raw", "raw-scripts");
		List<String> waiting = List.of("starter-watchdog", "starter-fixed", "redisson", "raw-pubsub",
				"raw-scripts-pubsub");
		List<Scenario> scenarios = List.of(new Scenario("1 thread, own key", 1, false, alone),
				new Scenario("16 threads, own key each", 16, false, alone),
				new Scenario("16 threads, one key", 16, true, waiting),
				new Scenario("64 threads, one key", 64, true, waiting));
		Map<String, Report.Grid> grids = new LinkedHashMap<>();
		for (int round = 0; round < this.rounds; round++) {
			for (Scenario scenario : scenarios) {
				Map<String, PairCost> results = new LinkedHashMap<>();
				for (String id : rotated(scenario.ids(), round)) {
					progress("costs round " + round + ", " + scenario.title() + ", " + id);
					results.put(id, pairCost(column(id), scenario.threads(), scenario.oneKey(),
							"pc:" + id + ":" + round + ":" + scenario.threads() + ":" + scenario.oneKey() + ":"));
				}
				PairCost floor = results.get(scenario.oneKey() ? "raw-pubsub" : "raw");
				Report.Grid grid = grids.computeIfAbsent(scenario.title(), (key) -> new Report.Grid());
				results.forEach((id, cost) -> {
					String row = Columns.title(id);
					grid.at(row, "pairs/s").add(cost.pairsPerSecond(), floor.pairsPerSecond());
					grid.at(row, "client CPU µs per pair").add(cost.clientCpuMicros(), floor.clientCpuMicros());
					grid.at(row, "Redis CPU µs per pair").add(cost.redisCpuMicros(), floor.redisCpuMicros());
					grid.at(row, "Redis commands per pair").add(cost.commands(), floor.commands());
					grid.at(row, "Redis busy (CPU s per s)").add(cost.redisBusy(), floor.redisBusy());
				});
			}
		}
		Map<String, Report.Grid> semaphoreGrids = semaphoreCosts();
		this.report.heading("Where a pair's time goes: client CPU, Redis CPU and commands per pair (issue #34)");
		this.report.paragraph("Per lock + unlock pair in the measured window: this JVM's CPU (all its threads: the"
				+ " callers, Lettuce's and the engine's, GC and JIT), redis-server's CPU (`INFO cpu`, user + sys) and"
				+ " the commands it ran (`INFO commandstats`, scripts' inner commands too), and how busy Redis was"
				+ " (its CPU seconds per second). The client and Redis share the machine's cores. \"the starter's"
				+ " scripts on the raw baseline\" sends the starter's own acquire and release scripts, with the"
				+ " arguments the engine sends, from the raw baseline's client (one shared Lettuce connection,"
				+ " synchronous calls, its waiting on release messages): the scripts without the starter's Java"
				+ " around them. Ratios are to the raw baseline of the same round (with pub/sub wake-up on one key).");
		grids.forEach((title, grid) -> {
			this.report.paragraph("**" + title + "**");
			this.report.grid("", grid, true, 1);
		});
		this.report.paragraph("Semaphores, acquire + release pairs of one permit (1 permit per semaphore, a 30 s"
				+ " lease, each thread its own semaphore): the starter's `RedisSemaphore.tryAcquire` (60 s wait) and"
				+ " the permit's `close()`, Redisson's `RPermitExpirableSemaphore`, the starter's permit scripts sent"
				+ " from the raw baseline's client (\"" + SemaphoreBench.SCRIPTS_ON_RAW + "\"), and the raw lock"
				+ " baseline's `SET NX PX` + compare-and-delete pair for scale. Ratios are to the raw baseline of"
				+ " the same round.");
		semaphoreGrids.forEach((title, grid) -> {
			this.report.paragraph("**" + title + "**");
			this.report.grid("", grid, true, 1);
		});
	}

	/**
	 * The costs of a semaphore's acquire + release pair, split as the locks' are: the
	 * starter, Redisson, the starter's permit scripts from the raw baseline's client, and
	 * the raw lock baseline.
	 */
	private Map<String, Report.Grid> semaphoreCosts() {
		Map<String, Report.Grid> grids = new LinkedHashMap<>();
		String raw = Columns.title("raw");
		List<String> ids = List.of(SemaphoreBench.STARTER, SemaphoreBench.REDISSON, SemaphoreBench.SCRIPTS_ON_RAW, raw);
		// The shared raw column (not closed here).
		Column floor = column("raw");
		try (SemaphoreBench bench = new SemaphoreBench(this.redis.port())) {
			for (int round = 0; round < this.rounds; round++) {
				for (int threads : List.of(1, 16)) {
					String title = "Semaphores, " + threads + ((threads == 1) ? " thread" : " threads")
							+ ", own semaphore";
					Map<String, PairCost> results = new LinkedHashMap<>();
					for (String id : rotated(ids, round)) {
						progress("costs round " + round + ", " + title + ", " + id);
						String prefix = "pcs:" + id.replace(' ', '-') + ":" + round + ":" + threads + ":";
						results.put(id, pairCost(threads, id.equals(raw) ? (t) -> pairOf(floor.locker(prefix + t))
								: (t) -> bench.pair(id, prefix + t, 1)));
					}
					PairCost base = results.get(raw);
					Report.Grid grid = grids.computeIfAbsent(title, (key) -> new Report.Grid());
					results.forEach((id, cost) -> {
						grid.at(id, "pairs/s").add(cost.pairsPerSecond(), base.pairsPerSecond());
						grid.at(id, "client CPU µs per pair").add(cost.clientCpuMicros(), base.clientCpuMicros());
						grid.at(id, "Redis CPU µs per pair").add(cost.redisCpuMicros(), base.redisCpuMicros());
						grid.at(id, "Redis commands per pair").add(cost.commands(), base.commands());
						grid.at(id, "Redis busy (CPU s per s)").add(cost.redisBusy(), base.redisBusy());
					});
				}
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException("The semaphore costs failed: " + ex, ex);
		}
		return grids;
	}

	private static Runnable pairOf(Column.Locker locker) {
		return () -> {
			locker.lock();
			locker.unlock();
		};
	}

	// Commands and requests per acquire and release.

	private void commands() {
		List<List<String>> rows = new ArrayList<>();
		int locks = 200;
		for (String id : Columns.ALL) {
			progress("commands, " + id);
			try (TcpProxy proxy = TcpProxy.to(this.redis); Column column = Columns.create(id, proxy.port())) {
				List<Column.Locker> lockers = new ArrayList<>();
				for (int i = 0; i < locks; i++) {
					Column.Locker locker = column.locker("k:" + id + ":" + i);
					locker.lock();
					locker.unlock();
					lockers.add(locker);
				}
				long requests0 = proxy.requests();
				long[] commands0 = commandStats();
				lockers.forEach(Column.Locker::lock);
				long requests1 = proxy.requests();
				long[] commands1 = commandStats();
				lockers.forEach(Column.Locker::unlock);
				long requests2 = proxy.requests();
				long[] commands2 = commandStats();
				if (id.startsWith("starter")) {
					this.targets.atMost("Redis time per uncontended acquire, " + Columns.title(id) + ": ≤ 5 µs",
							List.of(micros(commands0, commands1) / (double) locks), 5, "µs");
					this.targets.atMost("Redis time per release, " + Columns.title(id) + ": ≤ 5 µs",
							List.of(micros(commands1, commands2) / (double) locks), 5, "µs");
					this.targets.atMost(
							"Requests per uncontended acquire and per release, " + Columns.title(id) + ": one each",
							List.of((requests1 - requests0) / (double) locks, (requests2 - requests1) / (double) locks),
							1.0, "");
				}
				rows.add(List.of(Columns.title(id), per(requests1 - requests0, locks),
						per(commands1[0] - commands0[0], locks), per(micros(commands0, commands1), locks),
						per(requests2 - requests1, locks), per(commands2[0] - commands1[0], locks),
						per(micros(commands1, commands2), locks)));
			}
		}
		this.report.heading("Redis requests and commands per uncontended acquire and release");
		this.report.paragraph("Requests: commands the client sent, counted by a TCP proxy between client and Redis."
				+ " Commands: what Redis ran, scripts' inner commands included. Redis µs: the time Redis spent"
				+ " on it, from the scripts' time where scripts ran (it covers their inner commands), else"
				+ " from the commands' (both from `INFO commandstats` deltas). Means over " + locks + " locks.");
		this.report.table("", List.of("acquire requests", "acquire commands", "acquire Redis µs", "release requests",
				"release commands", "release Redis µs"), rows);
	}

	private static String per(long count, int operations) {
		return String.format(Locale.ROOT, "%.2f", count / (double) operations);
	}

	private long commandCalls() {
		return commandStats()[0];
	}

	/**
	 * Return the calls and the microseconds of all commands Redis ran so far, but INFO.
	 */
	private long[] commandStats() {
		return ServerBench.stats(this.control);
	}

	private static long micros(long[] before, long[] after) {
		return ServerBench.micros(before, after);
	}

	// Watchdog cost: requests and commands per renewal tick.

	private void watchdog() throws Exception {
		List<List<String>> rows = new ArrayList<>();
		List<List<String>> memoryRows = new ArrayList<>();
		Map<String, List<Double>> requestsPerTick = new LinkedHashMap<>();
		Map<String, List<Double>> cpuPerTick = new LinkedHashMap<>();
		List<Integer> counts = List.of(1000, 10000, 100000);
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		for (int held : counts) {
			for (String id : List.of("starter-watchdog", "redisson")) {
				progress("watchdog, " + held + " locks, " + id);
				try (TcpProxy proxy = TcpProxy.to(this.redis);
						// A lease of 6 s, a tick every 2 s: 100,000 renewals every second
						// (a 3 s
						// lease) ask one Redis thread for about a second of work a second
						// at
						// ~10 µs each, which it cannot give on this machine with the
						// client
						// beside it (renewals answered after the lease had run out).
						Column column = id.equals("redisson") ? new Columns.Redis(proxy.port(), 6000)
								: new Columns.Starter(proxy.port(), false, Duration.ofSeconds(6))) {
					String prefix = "w:" + id + ":" + held + ":";
					long heapBefore = usedAfterGc(memory);
					List<Column.Locker> lockers = new ArrayList<>();
					for (int i = 0; i < held; i++) {
						Column.Locker locker = column.locker(prefix + i);
						locker.lock();
						lockers.add(locker);
					}
					long heapAfter = usedAfterGc(memory);
					Measure.sleep(2500);
					long requests0 = proxy.requests();
					long commands0 = commandCalls();
					long cpu0 = clientCpuNanos(id);
					int ticks = 6;
					Measure.sleep(ticks * 2000L);
					long requests = proxy.requests() - requests0;
					long commands = commandCalls() - commands0;
					double cpuMillisPerTick = (clientCpuNanos(id) - cpu0) / 1e6 / ticks;
					rows.add(List.of(Columns.title(id), Report.number(held, 0), per(requests, ticks),
							per(commands, ticks), Report.number(cpuMillisPerTick, 1),
							String.format(Locale.ROOT, "%.2f %%", cpuMillisPerTick / 10_000 * 100)));
					requestsPerTick.computeIfAbsent(Columns.title(id), (key) -> new ArrayList<>())
						.add(requests / (double) ticks);
					cpuPerTick.computeIfAbsent(Columns.title(id), (key) -> new ArrayList<>()).add(cpuMillisPerTick);
					if (held == 100_000) {
						memoryRows
							.add(List.of(Columns.title(id), Report.number((heapAfter - heapBefore) / (double) held, 0),
									Report.number(redisBytesPerLock(id, prefix), 0)));
						if (id.startsWith("starter")) {
							this.targets.atMost("Watchdog, 100,000 locks held: requests per tick ≤ 200",
									List.of(requests / (double) ticks), 200, "");
							this.targets
								.atMost("Watchdog, 100,000 locks held: client CPU ≤ 5 % of one core (default lease,"
										+ " a tick every 10 s)", List.of(cpuMillisPerTick / 10_000 * 100), 5, "%");
						}
					}
					lockers.forEach(Column.Locker::unlock);
				}
			}
		}
		this.report.heading("Watchdog cost per renewal tick (lease 6 s, a tick every 2 s)");
		this.report.paragraph("Client CPU: CPU time of the client's own threads during the ticks (the starter's"
				+ " `redislock-*` and Lettuce's threads; Redisson's `redisson-*` threads), per tick; the share of one"
				+ " core is for the default lease of 30 s, whose watchdog ticks every 10 s. Spring Integration's"
				+ " registry has no watchdog (its locks expire unless renewed by hand); the raw baseline neither.");
		this.report.table("", List.of("locks held", "requests per tick", "commands per tick", "client CPU ms per tick",
				"share of one core, a tick every 10 s"), rows);
		this.report.heading("Memory per held lock (100,000 locks held)");
		this.report.paragraph("Client heap: used heap after GC with the locks held minus before, per lock. Redis:"
				+ " `MEMORY USAGE` of every key a held lock has (the starter: lock hash and fencing counter;"
				+ " Redisson: its lock hash), mean over 200 locks.");
		this.report.table("", List.of("client heap bytes per held lock", "Redis bytes per held lock"), memoryRows);
		List<Double> x = counts.stream().map(Integer::doubleValue).toList();
		chart("Watchdog requests per tick against locks held",
				(charts) -> charts.lines("watchdog-requests.png", "Watchdog requests per renewal tick", "locks held",
						"requests per tick",
						requestsPerTick.entrySet()
							.stream()
							.map((entry) -> new Charts.Line(entry.getKey(), x, entry.getValue()))
							.toList(),
						true, true));
		chart("Watchdog client CPU per tick against locks held",
				(charts) -> charts.lines("watchdog-cpu.png", "Watchdog client CPU per renewal tick", "locks held",
						"CPU ms per tick",
						cpuPerTick.entrySet()
							.stream()
							.map((entry) -> new Charts.Line(entry.getKey(), x, entry.getValue()))
							.toList(),
						true, true));
	}

	/**
	 * CPU time so far of the threads of one column's client: the starter's and Lettuce's
	 * threads, or Redisson's.
	 */
	private static long clientCpuNanos(String id) {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long total = 0;
		for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
			if (info == null) {
				continue;
			}
			String name = info.getThreadName();
			boolean mine = id.equals("redisson") ? name.startsWith("redisson-")
					: name.startsWith("redislock-") || name.startsWith("lettuce-");
			if (mine) {
				long cpu = threads.getThreadCpuTime(info.getThreadId());
				total += Math.max(0, cpu);
			}
		}
		return total;
	}

	/**
	 * Mean Redis memory of the keys of one held lock, over 200 of them.
	 */
	private double redisBytesPerLock(String id, String prefix) {
		long bytes = 0;
		int sampled = 200;
		for (int i = 0; i < sampled; i++) {
			String name = prefix + i;
			if (id.equals("redisson")) {
				bytes += memoryUsage(name);
			}
			else {
				String key = "redislock:{" + name + "}";
				bytes += memoryUsage(key) + memoryUsage(key + ":fence");
			}
		}
		return bytes / (double) sampled;
	}

	private long memoryUsage(String key) {
		Long usage = this.control.memoryUsage(key);
		return (usage != null) ? usage : 0;
	}

	// A fleet: wake-up messages per instance as instances are added.

	private void scale() throws Exception {
		int names = 1000;
		int threadsPerInstance = 8;
		Duration hold = Duration.ofMillis(2);
		List<List<String>> rows = new ArrayList<>();
		List<Double> x = new ArrayList<>();
		List<Double> after = new ArrayList<>();
		List<Double> before = new ArrayList<>();
		for (int instances : List.of(1, 2, 5, 10)) {
			progress("scale, " + instances + " instances");
			ScaleBench.Result result = ScaleBench.run(this.redis.port(), this.control, instances, threadsPerInstance,
					names, hold, this.warmUp, Math.max(3000, this.millis * 2));
			rows.add(List.of(Integer.toString(instances), Report.number(result.pairsPerSecond(), 0),
					Report.number(result.releases(), 0),
					String.format(Locale.ROOT, "%.3f", result.published() / (double) result.releases()),
					String.format(Locale.ROOT, "%.4f", result.receivedPerInstancePerRelease()),
					String.format(Locale.ROOT, "%.4f", result.sharedChannelPerInstancePerRelease()),
					Report.number(result.mostReceived(), 0), Integer.toString(result.stillListening())));
			x.add((double) instances);
			after.add(result.receivedPerInstancePerRelease());
			before.add(result.sharedChannelPerInstancePerRelease());
			if (instances == 10) {
				this.targets.record(
						"Scale, 10 instances, 1,000 contended names: an instance receives release"
								+ " messages only for the locks it waits on",
						String.format(Locale.ROOT,
								"%.4f messages per instance per release (one channel for all locks: %.4f); channels"
										+ " still listened on after the run: %d",
								result.receivedPerInstancePerRelease(), result.sharedChannelPerInstancePerRelease(),
								result.stillListening()),
						result.receivedPerInstancePerRelease() < result.sharedChannelPerInstancePerRelease()
								&& result.stillListening() == 0);
			}
		}
		this.report.heading("A fleet: release messages per instance as instances are added");
		this.report.paragraph("Each instance is a lock template on a connection factory of its own, all in this JVM,"
				+ " with " + threadsPerInstance + " threads that lock random names out of " + Report.number(names, 0)
				+ ", hold each " + hold.toMillis() + " ms and let go. Published: release messages Redis was asked to"
				+ " send (`PUBLISH`/`SPUBLISH` calls, from `INFO commandstats`), per release. Received: what the"
				+ " instances' listeners got, per instance per release. One channel for all locks (the design before"
				+ " issue #19, where every instance that had waited once listened to every release): each instance"
				+ " receives every published message, so per instance per release it is the published share.");
		this.report.table("instances",
				List.of("pairs/s", "releases", "published per release", "received per instance per release",
						"one channel for all locks: per instance per release", "most received by one instance",
						"channels still listened on after the run"),
				rows);
		chart("Release messages per instance per release against instances",
				(charts) -> charts.lines("scale-messages.png", "Release messages received per instance per release",
						"instances", "messages per instance per release",
						List.of(new Charts.Line("per-lock channels (now)", x, after),
								new Charts.Line("one channel for all locks (before)", x, before)),
						false, false));
	}

	// Hand-off latency across transitions (issue #27).

	private void transitions() throws Exception {
		Map<String, TransitionBench.Row> rows = TransitionBench.run(this.transitionSamples, this::progress);
		List<List<String>> table = new ArrayList<>();
		List<String> notes = new ArrayList<>();
		rows.forEach((scenario, row) -> {
			long[] handOffs = row.handOffs.stream().mapToLong(Long::longValue).toArray();
			long[] backs = row.backs.stream().mapToLong(Long::longValue).toArray();
			boolean steady = scenario.endsWith("steady state");
			table.add(List.of(scenario, Integer.toString(handOffs.length),
					(handOffs.length > 0) ? TransitionBench.millis(Stats.percentile(handOffs, 50)) : "n/a",
					(handOffs.length > 0) ? TransitionBench.millis(Stats.percentile(handOffs, 90)) : "n/a",
					(handOffs.length > 0) ? TransitionBench.millis(Stats.percentile(handOffs, 100)) : "n/a",
					Long.toString(row.late()), Integer.toString(row.failures),
					steady ? "–" : (backs.length > 0) ? TransitionBench.millis(Stats.percentile(backs, 50)) : "n/a",
					steady ? "–" : (backs.length > 0) ? TransitionBench.millis(Stats.percentile(backs, 100)) : "n/a",
					steady ? "–" : Integer.toString(row.notBack)));
			if (row.notSubscribedBefore > 0) {
				notes.add(scenario + ": in " + row.notSubscribedBefore + " samples the waiter was not parked with its"
						+ " subscription on the slot's master within 10 s before the transition (measured anyway)");
			}
			row.notes.stream().distinct().forEach((note) -> notes.add(scenario + ": " + note));
		});
		this.report.heading("Hand-off latency across transitions (issue #27)");
		this.report.paragraph("Holder's `unlock()` returns → waiter's `tryLock` returns, in milliseconds; holder and"
				+ " waiter are two lock templates, each on a connection factory of its own, in this JVM; the holder's"
				+ " lease is 30 s, so a missed wake-up shows as seconds. " + this.transitionSamples
				+ " hand-offs per scenario, scenarios interleaved round by round, after " + TransitionBench.WARM_UP
				+ " steady hand-offs of warm-up;"
				+ " one server and a six-node Cluster (3 masters, 3 replicas) of their own. Before each transition"
				+ " the waiter is parked in `tryLock` with its release subscription in place. Subscription back: from"
				+ " the transition's first command to the waiter's subscription counted again (`PUBSUB NUMSUB`, or"
				+ " `PUBSUB SHARDNUMSUB` on the node that now serves the slot), polled every millisecond for up to 5 s.");
		this.report.table("", List.of("samples", "p50 ms", "p90 ms", "max ms", "over 1 s", "failed",
				"subscription back p50 ms", "subscription back max ms", "subscription not back within 5 s"), table);
		if (!notes.isEmpty()) {
			this.report.paragraph("Notes: " + String.join("; ", notes) + ".");
		}
	}

	// Read locks: 16 readers on one read-write lock.

	private void readLocks() {
		Report.Grid grid = new Report.Grid();
		for (int round = 0; round < this.rounds; round++) {
			Map<String, Double> perSecond = new LinkedHashMap<>();
			for (String id : rotated(List.of("starter-watchdog", "redisson"), round)) {
				progress("read locks round " + round + ", " + id);
				Column column = column(id);
				String key = "r:" + id + ":" + round;
				Measure.Run run = Measure.run(16, this.warmUp, this.millis, (t) -> {
					Column.Locker locker = column.readLocker(key);
					return () -> {
						locker.lock();
						locker.unlock();
					};
				});
				perSecond.put(id, run.perSecond());
			}
			for (String id : List.of("starter-watchdog", "redisson")) {
				grid.at(Columns.title(id), "16 readers, one lock").add(perSecond.get(id), perSecond.get("redisson"));
			}
		}
		this.report.heading("Read-lock pairs per second (ratio to Redisson's RReadWriteLock)");
		this.report.grid("", grid, true, 0);
		this.targets.atLeast("Read-lock pairs/s, 16 readers on one lock: ≥ 1.5× Redisson",
				ratios(grid, Columns.title("starter-watchdog"), "16 readers, one lock"), 1.5, "×");
	}

	// RedLock over 3 and 5 servers against one.

	private void redLock() {
		List<LocalRedisServer> servers = new ArrayList<>();
		try {
			for (int i = 0; i < 5; i++) {
				servers.add(LocalRedisServer.start());
			}
			Map<String, Column> redLocks = new LinkedHashMap<>();
			redLocks.put("single", column("starter-watchdog"));
			redLocks.put("3",
					new Columns.StarterRedLock(servers.subList(0, 3).stream().map(LocalRedisServer::port).toList()));
			redLocks.put("5", new Columns.StarterRedLock(servers.stream().map(LocalRedisServer::port).toList()));
			Report.Grid grid = new Report.Grid();
			for (int round = 0; round < this.rounds; round++) {
				for (int threads : List.of(1, 16)) {
					Map<String, Double> results = new LinkedHashMap<>();
					for (String id : rotated(List.copyOf(redLocks.keySet()), round + threads)) {
						progress("redlock round " + round + ", " + threads + " threads, " + id);
						results.put(id, pairsPerSecond(redLocks.get(id), threads,
								"rl:" + id + ":" + round + ":" + threads + ":"));
					}
					double single = results.get("single");
					results
						.forEach((id, value) -> grid.at(redLocks.get(id).title(), threads(threads)).add(value, single));
				}
			}
			redLocks.get("3").close();
			redLocks.get("5").close();
			this.report.heading("RedLock: uncontended pairs per second over 3 and 5 servers against one");
			this.report.paragraph("Ratios are to the single-server starter of the same round.");
			this.report.grid("", grid, true, 0);
		}
		finally {
			servers.forEach(LocalRedisServer::close);
		}
	}

	// The task queue.

	private void queue() throws Exception {
		progress("queue");
		QueueBench.Result result = QueueBench.run(this.redis.port(), 20_000, 300);
		this.report.heading("Task queue (`@QueuedTask`, no-op tasks)");
		this.report.paragraph("One round: " + Report.number(result.tasks(), 0) + " tasks enqueued from 8 threads;"
				+ " end to end with two worker instances of 8 workers each, after a warm-up run of as many tasks,"
				+ " from the first enqueue to the last task done; then 30,000 tasks enqueued at 10,000 per second"
				+ " (paced), with the lag from each enqueue to its task's start; draining: the same number of tasks"
				+ " all due at one instant, enqueued beforehand, from that instant to the last task done; lag from"
				+ " due time to start over 300 tasks enqueued 10 ms apart to idle workers. Every task of the"
				+ " measured runs is checked to have run exactly once.");
		this.report.table("", List.of("value"),
				List.of(List.of("enqueues per second", Report.number(result.enqueuesPerSecond(), 0)),
						List.of("tasks per second, end to end", Report.number(result.tasksPerSecond(), 0)),
						List.of("tasks per second, draining a backlog", Report.number(result.drainPerSecond(), 0)),
						List.of("enqueue-to-start lag p50, 10,000 tasks/s for 3 s",
								Report.number(result.loadLagP50Millis(), 1) + " ms"),
						List.of("enqueue-to-start lag p99, 10,000 tasks/s for 3 s",
								Report.number(result.loadLagP99Millis(), 1) + " ms"),
						List.of("due-to-start lag p50, idle workers", Report.number(result.lagP50Millis(), 1) + " ms"),
						List.of("due-to-start lag p99, idle workers", Report.number(result.lagP99Millis(), 1) + " ms"),
						List.of("tasks lost (end to end and draining)", Long.toString(result.lost())),
						List.of("tasks run more than once", Long.toString(result.ranTwice()))));
		this.targets.atLeast("Queue: no-op tasks per second end to end, a producer and two worker instances ≥ 10,000",
				List.of(result.tasksPerSecond()), 10_000, "tasks/s");
		this.targets.atMost("Queue: enqueue-to-start lag p99 at 10,000 tasks/s ≤ 50 ms",
				List.of(result.loadLagP99Millis()), 50, "ms");
		this.targets.record("Queue: no task lost or run twice (checked by the run)",
				result.lost() + " lost, " + result.ranTwice() + " ran twice",
				result.lost() == 0 && result.ranTwice() == 0);
	}

	// The queue beside Rqueue (issue #34).

	private void queuePeers() {
		String ours = QueuePeers.Peer.OURS.title();
		String rqueue = QueuePeers.Peer.RQUEUE.title();
		Report.Grid grid = new Report.Grid();
		Map<String, List<QueuePeers.Result>> results = new LinkedHashMap<>();
		for (int round = 0; round < this.rounds; round++) {
			Map<QueuePeers.Peer, QueuePeers.Result> thisRound = new LinkedHashMap<>();
			List<QueuePeers.Peer> order = new ArrayList<>(List.of(QueuePeers.Peer.values()));
			if (round % 2 == 1) {
				java.util.Collections.reverse(order);
			}
			for (QueuePeers.Peer peer : order) {
				progress("queue-peers round " + round + ", " + peer);
				QueuePeers.Result result = QueuePeers.run(peer, this.redis, this.control, this::progress);
				thisRound.put(peer, result);
				results.computeIfAbsent(peer.title(), (key) -> new ArrayList<>()).add(result);
			}
			QueuePeers.Result base = thisRound.get(QueuePeers.Peer.RQUEUE);
			for (QueuePeers.Peer peer : QueuePeers.Peer.values()) {
				QueuePeers.Result result = thisRound.get(peer);
				grid.at(peer.title(), "tasks/s end to end").add(result.tasksPerSecond(), base.tasksPerSecond());
				grid.at(peer.title(), "enqueues/s in that run")
					.add(result.enqueuesPerSecond(), base.enqueuesPerSecond());
				grid.at(peer.title(), "lag p50 ms at 10,000/s").add(result.lagP50Millis(), base.lagP50Millis());
				grid.at(peer.title(), "lag p99 ms at 10,000/s").add(result.lagP99Millis(), base.lagP99Millis());
				grid.at(peer.title(), "Redis commands per task").add(result.commandsPerTask(), base.commandsPerTask());
				grid.at(peer.title(), "Redis CPU µs per task")
					.add(result.redisCpuMicrosPerTask(), base.redisCpuMicrosPerTask());
			}
		}
		long idleMillis = 10_000;
		// Ours looks at each of N idle queues every N poll intervals (2 s by default), at
		// most every 60 s: 20 queues every 40 s; a window of twice that sees every queue
		// looked at twice.
		long ourIdleMillis = 80_000;
		Map<String, QueuePeers.Idle> idle = new LinkedHashMap<>();
		for (int queues : List.of(1, 20)) {
			progress("queue-peers, idle, ours, " + queues + " queues");
			idle.put(ours + ", " + queues + ((queues == 1) ? " queue" : " queues"),
					QueuePeers.idle(QueuePeers.Peer.OURS, this.redis, this.control, queues, 0, ourIdleMillis));
		}
		for (long interval : List.of(0L, QueuePeers.RQUEUE_POLLING_INTERVAL)) {
			for (int queues : List.of(1, 20)) {
				progress("queue-peers, idle, Rqueue, " + queues + " queues, polling " + interval);
				idle.put(
						"Rqueue " + QueuePeers.rqueueVersion() + ", polling every "
								+ ((interval == 0) ? "200 ms (its default)" : interval + " ms") + ", " + queues
								+ ((queues == 1) ? " queue" : " queues"),
						QueuePeers.idle(QueuePeers.Peer.RQUEUE, this.redis, this.control, queues, interval,
								idleMillis));
			}
		}
		this.report.heading("The queue beside Rqueue: a producer and two worker processes (issue #34)");
		this.report.paragraph("Each queue as its users run it, on the same redis-server, one after the other (the order"
				+ " alternates by round): " + ours + " on Spring Boot 4, Rqueue " + QueuePeers.rqueueVersion()
				+ " (`rqueue-spring-boot-starter`, the newest 3.x on Maven Central) on Spring Boot "
				+ QueuePeers.rqueueVersion("spring-boot") + " with Spring Framework "
				+ QueuePeers.rqueueVersion("spring-core") + ". Three JVMs per queue (`-Xmx512m`,"
				+ " ParallelGC): a producer that enqueues from 8 threads, and two worker instances with "
				+ QueuePeers.WORKERS + " workers for the queue each (ours: `redislock.queue.workers=8`; Rqueue:"
				+ " `@RqueueListener(concurrency = \"8\")`); both libraries' other settings are their defaults"
				+ " but Rqueue's polling interval, lowered from 200 ms to " + QueuePeers.RQUEUE_POLLING_INTERVAL
				+ " ms (with 200 ms, two instances ran 75 no-op tasks/s: an instance whose 8 workers are all busy"
				+ " when it polls sleeps the interval), and its version check, turned off (Rqueue keeps jobs and"
				+ " statistics by default),"
				+ " and a task's payload is its phase, number and enqueue time. Per round and queue: a warm-up"
				+ " run of " + Report.number(QueuePeers.TASKS, 0) + " no-op tasks enqueued flat out, not measured;"
				+ " the measured run of as many, from the first enqueue to the last task started (wall clock,"
				+ " shared by the processes); then "
				+ Report.number(QueuePeers.PACED_RATE * QueuePeers.PACED_SECONDS, 0) + " tasks enqueued at "
				+ Report.number(QueuePeers.PACED_RATE, 0) + " per second, with the lag"
				+ " from each enqueue call to its task's start. Redis commands and redis-server CPU per task:"
				+ " `INFO commandstats` (scripts' inner commands counted too) and `INFO cpu` deltas over the"
				+ " measured run, whatever ran in it (polls and housekeeping included). Ratios are to Rqueue's of"
				+ " the same round.");
		this.report.grid("", grid, true, 1);
		List<List<String>> onceRows = new ArrayList<>();
		results.forEach((title, list) -> onceRows.add(List.of(title,
				Report.number(2 * QueuePeers.TASKS + QueuePeers.PACED_RATE * QueuePeers.PACED_SECONDS, 0),
				Long.toString(list.stream().mapToLong(QueuePeers.Result::lost).sum()),
				Long.toString(list.stream().mapToLong(QueuePeers.Result::ranTwice).sum()),
				Long.toString(list.stream().mapToLong(QueuePeers.Result::unexpected).sum()))));
		this.report.paragraph("Every task of the three runs is counted by its number in the workers; summed over"
				+ " the rounds (a task missing 60 s after the last enqueue counts as lost):");
		this.report.table("", List.of("tasks per round", "lost", "ran more than once", "runs of unknown tasks"),
				onceRows);
		List<List<String>> commandRows = new ArrayList<>();
		results.forEach((title, list) -> {
			Map<String, Double> commands = list.get(list.size() - 1).commands();
			StringBuilder text = new StringBuilder();
			commands.entrySet()
				.stream()
				.limit(8)
				.forEach((entry) -> text.append((text.length() > 0) ? ", " : "")
					.append('`')
					.append(entry.getKey())
					.append("` ")
					.append(String.format(Locale.ROOT, "%.2f", entry.getValue())));
			commandRows.add(List.of(title, text.toString()));
		});
		this.report.paragraph(
				"Where the commands go: the most called commands per task in the measured run of the" + " last round.");
		this.report.table("", List.of("commands per task"), commandRows);
		List<List<String>> idleRows = new ArrayList<>();
		idle.forEach((row, value) -> {
			StringBuilder text = new StringBuilder();
			value.commands()
				.entrySet()
				.stream()
				.sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
				.limit(6)
				.forEach((entry) -> text.append((text.length() > 0) ? ", " : "")
					.append('`')
					.append(entry.getKey())
					.append("` ")
					.append(String.format(Locale.ROOT, "%.1f", entry.getValue())));
			idleRows.add(List.of(row, String.format(Locale.ROOT, "%.1f", value.requestsPerSecond()),
					String.format(Locale.ROOT, "%.1f", value.commandsPerSecond()), text.toString()));
		});
		this.report.paragraph("Idle cost: one worker instance (a process of its own, " + QueuePeers.WORKERS
				+ " workers a queue) with 1 or 20 queues and no task, its connections through a TCP proxy that"
				+ " counts the requests it sends; measured over " + ourIdleMillis / 1000 + " s (ours: it looks at"
				+ " each of 20 idle queues every 40 s, and checks its subscription with a probe every 30 s) or "
				+ idleMillis / 1000 + " s (Rqueue) after it had run for"
				+ " 3 s. Commands: what Redis ran (`INFO commandstats`), scripts' inner commands too.");
		this.report.table("", List.of("requests/s", "commands/s", "most called, per second"), idleRows);
		Map<String, List<Double>> throughput = new LinkedHashMap<>();
		for (String title : List.of(ours, rqueue)) {
			List<Double> values = values(grid, title, "tasks/s end to end");
			throughput.put(title, List.of(values.isEmpty() ? 0 : Stats.median(values)));
		}
		chart("The queue beside Rqueue: no-op tasks per second end to end",
				(charts) -> charts.bars("queue-peers.png",
						"No-op tasks per second end to end (a producer, two worker processes)", "tasks/s",
						List.of("tasks/s end to end"), throughput, false));
		Map<String, List<Double>> idleSeries = new LinkedHashMap<>();
		idle.forEach((row, value) -> {
			String series = row.substring(0, row.lastIndexOf(", "));
			// A log axis cannot show zero: an instance that sent nothing in the window is
			// drawn
			// at the axis' floor, 0.01 (the table gives the value).
			idleSeries.computeIfAbsent(series, (key) -> new ArrayList<>())
				.add(Math.max(0.01, value.requestsPerSecond()));
		});
		chart("Idle requests per second of one instance, 1 and 20 queues",
				(charts) -> charts.bars("queue-idle.png", "Idle requests per second of one worker instance",
						"requests/s (log; 0 drawn at 0.01)", List.of("1 queue", "20 queues"), idleSeries, true));
		this.targets.atLeast("Queue beside Rqueue: no-op tasks/s end to end, a producer and two worker processes"
				+ " (issue #34) ≥ 20,000", values(grid, ours, "tasks/s end to end"), 20_000, "tasks/s");
		this.targets.atLeast("Queue beside Rqueue: no-op tasks/s end to end ≥ 2× Rqueue's (issue #34)",
				ratios(grid, ours, "tasks/s end to end"), 2, "×");
		this.targets.atMost("Queue beside Rqueue: enqueue-to-start lag p99 at 10,000 tasks/s ≤ 20 ms (issue #34)",
				values(grid, ours, "lag p99 ms at 10,000/s"), 20, "ms");
		List<QueuePeers.Result> mine = results.getOrDefault(ours, List.of());
		List<QueuePeers.Result> theirs = results.getOrDefault(rqueue, List.of());
		long lost = mine.stream().mapToLong(QueuePeers.Result::lost).sum();
		long twice = mine.stream().mapToLong(QueuePeers.Result::ranTwice).sum();
		this.targets.record("Queue beside Rqueue: every task exactly once, two worker processes (issue #34)",
				lost + " lost, " + twice + " ran twice (Rqueue: "
						+ theirs.stream().mapToLong(QueuePeers.Result::lost).sum() + " lost, "
						+ theirs.stream().mapToLong(QueuePeers.Result::ranTwice).sum() + " ran twice)",
				!mine.isEmpty() && lost == 0 && twice == 0);
		QueuePeers.Idle one = idle.get(ours + ", 1 queue");
		QueuePeers.Idle twenty = idle.get(ours + ", 20 queues");
		QueuePeers.Idle rqueueTwenty = idle
			.get("Rqueue " + QueuePeers.rqueueVersion() + ", polling every 200 ms (its default), 20 queues");
		this.targets.record(
				"Queue: idle requests/s of an instance flat in the number of queues (20 queues ≤ 1.25× one queue;"
						+ " issue #34)",
				String.format(Locale.ROOT,
						"%.1f requests/s with 20 queues, %.1f with 1 (%.2f×); Rqueue with 20 queues, default polling: %.1f",
						twenty.requestsPerSecond(), one.requestsPerSecond(),
						twenty.requestsPerSecond() / one.requestsPerSecond(), rqueueTwenty.requestsPerSecond()),
				twenty.requestsPerSecond() <= 1.25 * one.requestsPerSecond());
	}

	// Memory after many distinct names.

	private void memory() throws Exception {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		List<List<String>> rows = new ArrayList<>();
		int cycles = 1_000_000;
		int names = 100_000;
		for (String id : List.of("starter-watchdog", "redisson", "si-pubsub")) {
			progress("memory, " + id);
			Column column = column(id);
			String prefix = "m:" + UUID.randomUUID() + ":";
			long before = usedAfterGc(memory);
			int threads = 16;
			AtomicInteger next = new AtomicInteger();
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Thread worker = new Thread(() -> {
					int i;
					while ((i = next.getAndIncrement()) < cycles) {
						Column.Locker locker = column.locker(prefix + (i % names));
						locker.lock();
						locker.unlock();
					}
				});
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join();
			}
			long after = usedAfterGc(memory);
			rows.add(List.of(Columns.title(id), mb(before), mb(after), mb(after - before)));
		}
		this.report.heading("Heap after " + Report.number(cycles, 0) + " lock/unlock cycles over "
				+ Report.number(names, 0) + " distinct names (after GC)");
		this.report.table("", List.of("before MB", "after MB", "growth MB"), rows);
	}

	private static String mb(long bytes) {
		return String.format(Locale.ROOT, "%.1f", bytes / (1024.0 * 1024.0));
	}

	private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			System.gc();
			Thread.sleep(100);
			used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
		}
		return used;
	}

}
