package io.github.redislock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;

/**
 * Runs operations on threads for a warm-up and a measured window.
 */
final class Measure {

	private Measure() {
	}

	/**
	 * What a run did: operations in the measured window, operations in all, and the
	 * window's length.
	 */
	record Run(long windowOps, long totalOps, long windowNanos) {

		double perSecond() {
			return this.windowOps * 1e9 / this.windowNanos;
		}

	}

	/**
	 * Run {@code threads} threads, each repeating the operation {@code operations} gives
	 * it, for {@code warmUpMillis} and then {@code measureMillis}.
	 */
	static Run run(int threads, long warmUpMillis, long measureMillis, IntFunction<Runnable> operations) {
		return run(threads, warmUpMillis, measureMillis, operations, new Window() {

			@Override
			public void opened() {
			}

			@Override
			public void closed() {
			}

		});
	}

	/**
	 * Told when the measured window opens and when it closes (on the measuring thread),
	 * to read counters around it.
	 */
	interface Window {

		void opened();

		void closed();

	}

	/**
	 * Like {@link #run(int, long, long, IntFunction)}, telling {@code window} when the
	 * measured window opens and closes.
	 */
	static Run run(int threads, long warmUpMillis, long measureMillis, IntFunction<Runnable> operations,
			Window window) {
		AtomicLongArray counts = new AtomicLongArray(threads);
		AtomicBoolean stop = new AtomicBoolean();
		List<Thread> workers = new ArrayList<>();
		List<Throwable> failures = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int index = t;
			Runnable operation = operations.apply(t);
			Thread worker = new Thread(() -> {
				try {
					while (!stop.get()) {
						operation.run();
						counts.incrementAndGet(index);
					}
				}
				catch (Throwable ex) {
					synchronized (failures) {
						failures.add(ex);
					}
				}
			}, "bench-" + t);
			workers.add(worker);
		}
		workers.forEach(Thread::start);
		sleep(warmUpMillis);
		window.opened();
		long startOps = sum(counts);
		long start = System.nanoTime();
		sleep(measureMillis);
		long endOps = sum(counts);
		long elapsed = System.nanoTime() - start;
		window.closed();
		stop.set(true);
		for (Thread worker : workers) {
			try {
				worker.join(TimeUnit.MINUTES.toMillis(5));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (!failures.isEmpty()) {
			throw new IllegalStateException("A benchmark thread failed", failures.get(0));
		}
		return new Run(endOps - startOps, sum(counts), elapsed);
	}

	private static long sum(AtomicLongArray counts) {
		long sum = 0;
		for (int i = 0; i < counts.length(); i++) {
			sum += counts.get(i);
		}
		return sum;
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
