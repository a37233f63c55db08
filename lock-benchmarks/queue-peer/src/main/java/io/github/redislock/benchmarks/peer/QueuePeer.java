package io.github.redislock.benchmarks.peer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One process of the queue benchmark (a producer or a worker instance of one queue
 * implementation), driven over stdin by the benchmark: the same protocol for every queue,
 * so that each is measured the same way. Plain Java: compiled into the benchmark and into
 * the child JVMs that run a queue built for another Spring version.
 * <p>
 * Commands, one a line, each answered with one line:
 * <ul>
 * <li>{@code EXPECT phase count} → {@code EXPECTING}: a worker is to count runs of tasks
 * 0 to count - 1 of a phase;</li>
 * <li>{@code PRODUCE phase count rate} → {@code PRODUCED startMicros endMicros}: enqueue
 * tasks 0 to count - 1 from eight threads, flat out (rate 0) or paced at rate per
 * second;</li>
 * <li>{@code COUNT phase} → {@code COUNTED runs lastRunMicros unexpected};</li>
 * <li>{@code RUNS phase} → {@code RUNS digits}: how often each task ran here (one digit a
 * task, 9 for 9 or more);</li>
 * <li>{@code LAGS phase} → {@code LAGS l1,l2,...}: enqueue-to-start lag (µs) of each
 * task's first run here;</li>
 * <li>{@code STOP} → {@code STOPPED}, then the process ends.</li>
 * </ul>
 * Times are wall-clock microseconds since the epoch, comparable between the processes of
 * one machine.
 */
public final class QueuePeer {

	/**
	 * Enqueues one no-op task carrying its phase, index and enqueue time.
	 */
	public interface Producer {

		void enqueue(String phase, int index, long enqueuedMicros);

	}

	private static final Map<String, Phase> PHASES = new ConcurrentHashMap<>();

	/** Runs of tasks of a phase this process was not told to expect. */
	private static final AtomicLong UNEXPECTED = new AtomicLong();

	private QueuePeer() {
	}

	public static long nowMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
	}

	/**
	 * Record the run of a task: called by the worker's task method, first thing.
	 */
	public static void ran(String phase, int index, long enqueuedMicros) {
		long now = nowMicros();
		Phase state = PHASES.get(phase);
		if (state == null || index < 0 || index >= state.lags.length) {
			UNEXPECTED.incrementAndGet();
			return;
		}
		if (state.runs.getAndIncrement(index) == 0) {
			state.lags[index] = now - enqueuedMicros;
		}
		state.runs(now);
	}

	/**
	 * Answer the benchmark's commands until STOP or the end of stdin, then run
	 * {@code close}.
	 * @param producer how this process enqueues, {@code null} for a worker
	 */
	public static void serve(Producer producer, Runnable close) throws Exception {
		say("READY");
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		try {
			while ((line = commands.readLine()) != null) {
				String[] command = line.split(" ");
				switch (command[0]) {
					case "EXPECT" -> {
						PHASES.put(command[1], new Phase(Integer.parseInt(command[2])));
						say("EXPECTING");
					}
					case "PRODUCE" -> {
						long[] times = produce(producer, command[1], Integer.parseInt(command[2]),
								Integer.parseInt(command[3]));
						say("PRODUCED " + times[0] + " " + times[1]);
					}
					case "COUNT" -> {
						Phase state = PHASES.get(command[1]);
						say("COUNTED " + ((state != null) ? state.done.get() : 0) + " "
								+ ((state != null) ? state.lastDone.get() : 0) + " " + UNEXPECTED.get());
					}
					case "RUNS" -> {
						Phase state = PHASES.get(command[1]);
						StringBuilder digits = new StringBuilder();
						for (int i = 0; state != null && i < state.lags.length; i++) {
							digits.append((char) ('0' + Math.min(9, state.runs.get(i))));
						}
						say("RUNS " + digits);
					}
					case "LAGS" -> {
						Phase state = PHASES.get(command[1]);
						StringBuilder lags = new StringBuilder();
						for (int i = 0; state != null && i < state.lags.length; i++) {
							if (state.runs.get(i) > 0) {
								lags.append((lags.length() > 0) ? "," : "").append(state.lags[i]);
							}
						}
						say("LAGS " + lags);
					}
					case "STOP" -> {
						close.run();
						say("STOPPED");
						return;
					}
					default -> say("UNKNOWN " + line);
				}
			}
		}
		finally {
			close.run();
		}
	}

	private static long[] produce(Producer producer, String phase, int count, int rate) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			long startNanos = System.nanoTime();
			long startMicros = nowMicros();
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int first = t;
				work.add(threads.submit(() -> {
					for (int i = first; i < count; i += 8) {
						if (rate > 0) {
							long due = startNanos + (long) (i * 1e9 / rate);
							long wait;
							while ((wait = due - System.nanoTime()) > 0) {
								LockSupport.parkNanos(wait);
							}
						}
						producer.enqueue(phase, i, nowMicros());
					}
				}));
			}
			for (Future<?> future : work) {
				future.get(5, TimeUnit.MINUTES);
			}
			return new long[] { startMicros, nowMicros() };
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static synchronized void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

	private static final class Phase {

		final AtomicIntegerArray runs;

		final long[] lags;

		final AtomicLong done = new AtomicLong();

		final AtomicLong lastDone = new AtomicLong();

		Phase(int count) {
			this.runs = new AtomicIntegerArray(count);
			this.lags = new long[count];
		}

		void runs(long now) {
			this.done.incrementAndGet();
			this.lastDone.accumulateAndGet(now, Math::max);
		}

	}

}
