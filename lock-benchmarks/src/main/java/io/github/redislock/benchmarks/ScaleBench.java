package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A fleet in one JVM: {@code instances} lock templates, each on a connection factory of
 * its own (as separate application instances have), whose threads lock random names out
 * of {@code names}, hold each for a moment and let go. Counts the releases, the release
 * messages Redis was asked to publish ({@code PUBLISH}/{@code SPUBLISH} calls, scripts'
 * included) and the messages each instance received.
 */
final class ScaleBench {

	private ScaleBench() {
	}

	/**
	 * @param releases locks released in the window
	 * @param published release messages published in the window
	 * @param received release messages received by all instances in the window
	 * @param mostReceived most messages received by one instance
	 * @param pairsPerSecond lock + unlock pairs per second, all instances
	 * @param stillListening release channels some instance listened on after the run
	 */
	record Result(int instances, long releases, long published, long received, long mostReceived, double pairsPerSecond,
			int stillListening) {

		/** Messages received per instance per release. */
		double receivedPerInstancePerRelease() {
			return this.received / (double) this.instances / this.releases;
		}

		/**
		 * Messages each instance would have received per release with one channel for all
		 * locks (the design before issue #19): every instance that ever waited listened
		 * on it and received every published release.
		 */
		double sharedChannelPerInstancePerRelease() {
			return this.published / (double) this.releases;
		}

	}

	static Result run(int port, RedisCommands<String, String> control, int instances, int threadsPerInstance, int names,
			Duration hold, long warmUpMillis, long millis) throws InterruptedException {
		List<LettuceConnectionFactory> factories = new ArrayList<>();
		List<DefaultRedisLockTemplate> templates = new ArrayList<>();
		String prefix = "scale:" + instances + ":" + System.nanoTime() + ":";
		try {
			for (int i = 0; i < instances; i++) {
				LettuceConnectionFactory factory = Columns.connectionFactory(port);
				factories.add(factory);
				templates.add(new DefaultRedisLockTemplate(factory, LockSettings.DEFAULTS));
			}
			AtomicBoolean measuring = new AtomicBoolean();
			AtomicBoolean stop = new AtomicBoolean();
			AtomicLong releases = new AtomicLong();
			List<Thread> threads = new ArrayList<>();
			List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
			for (DefaultRedisLockTemplate template : templates) {
				ConcurrentHashMap<Integer, RedisLock> locks = new ConcurrentHashMap<>();
				for (int t = 0; t < threadsPerInstance; t++) {
					Thread thread = new Thread(() -> {
						try {
							while (!stop.get()) {
								int name = ThreadLocalRandom.current().nextInt(names);
								RedisLock lock = locks.computeIfAbsent(name, (n) -> template.getLock(prefix + n));
								if (!lock.tryLock(Duration.ofSeconds(30), null)) {
									throw new IllegalStateException("not acquired in 30 s");
								}
								LockSupport.parkNanos(hold.toNanos());
								lock.unlock();
								if (measuring.get()) {
									releases.incrementAndGet();
								}
							}
						}
						catch (Throwable ex) {
							failures.add(ex);
						}
					}, "scale-" + threads.size());
					threads.add(thread);
					thread.start();
				}
			}
			Measure.sleep(warmUpMillis);
			long published0 = published(control);
			long[] received0 = received(templates);
			long start = System.nanoTime();
			measuring.set(true);
			Measure.sleep(millis);
			measuring.set(false);
			long nanos = System.nanoTime() - start;
			long published = published(control) - published0;
			long[] received1 = received(templates);
			stop.set(true);
			for (Thread thread : threads) {
				thread.join(TimeUnit.MINUTES.toMillis(1));
			}
			if (!failures.isEmpty()) {
				throw new IllegalStateException("a scale worker failed", failures.get(0));
			}
			long received = 0;
			long most = 0;
			for (int i = 0; i < instances; i++) {
				long delta = received1[i] - received0[i];
				received += delta;
				most = Math.max(most, delta);
			}
			int listening = 0;
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			do {
				listening = 0;
				for (DefaultRedisLockTemplate template : templates) {
					listening += template.releaseChannelsListening();
				}
			}
			while (listening > 0 && System.nanoTime() < deadline && sleep());
			return new Result(instances, releases.get(), published, received, most, releases.get() * 1e9 / nanos,
					listening);
		}
		finally {
			for (DefaultRedisLockTemplate template : templates) {
				try {
					template.destroy();
				}
				catch (Exception ex) {
					// Closing anyway.
				}
			}
			factories.forEach(LettuceConnectionFactory::destroy);
		}
	}

	private static boolean sleep() {
		Measure.sleep(20);
		return true;
	}

	private static long[] received(List<DefaultRedisLockTemplate> templates) {
		long[] received = new long[templates.size()];
		for (int i = 0; i < received.length; i++) {
			received[i] = templates.get(i).releaseMessagesReceived();
		}
		return received;
	}

	/**
	 * Release messages published so far: {@code PUBLISH} and {@code SPUBLISH} calls,
	 * those run by scripts included.
	 */
	static long published(RedisCommands<String, String> control) {
		long calls = 0;
		for (String line : control.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_publish:") || line.startsWith("cmdstat_spublish:")) {
				int start = line.indexOf("calls=") + "calls=".length();
				calls += Long.parseLong(line.substring(start, line.indexOf(',', start)));
			}
		}
		return calls;
	}

}
