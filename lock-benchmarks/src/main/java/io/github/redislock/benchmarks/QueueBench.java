package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.queue.TaskQueue;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The task queue, through {@code @QueuedTask} in real application contexts: enqueues per
 * second, no-op tasks per second end to end with two worker instances, and the lag from a
 * task's due time to its start while workers are idle.
 */
final class QueueBench {

	static final AtomicLong DONE = new AtomicLong();

	static final AtomicLong LAST_DONE_NANOS = new AtomicLong();

	static final ConcurrentLinkedQueue<Long> LAGS = new ConcurrentLinkedQueue<>();

	/** Enqueue-to-start lag (µs) of the end-to-end tasks, under load. */
	static final ConcurrentLinkedQueue<Long> LOAD_LAGS = new ConcurrentLinkedQueue<>();

	/** How often each task id ran. */
	static final ConcurrentHashMap<String, Integer> RUNS = new ConcurrentHashMap<>();

	private QueueBench() {
	}

	/**
	 * @param lost tasks enqueued end to end or for the drain that never ran
	 * @param ranTwice tasks that ran more than once
	 */
	record Result(double enqueuesPerSecond, double tasksPerSecond, double drainPerSecond, double lagP50Millis,
			double lagP99Millis, double loadLagP50Millis, double loadLagP99Millis, long lost, long ranTwice,
			int tasks) {
	}

	static Result run(int port, int tasks, int lagSamples) throws Exception {
		String queue = "bench-" + UUID.randomUUID();
		double enqueues;
		try (ConfigurableApplicationContext producer = context(port, "produce-" + queue, 0)) {
			NoOp noOp = producer.getBean(NoOp.class);
			long start = System.nanoTime();
			enqueue(noOp, tasks);
			enqueues = tasks * 1e9 / (System.nanoTime() - start);
		}
		try (ConfigurableApplicationContext first = context(port, queue, 8);
				ConfigurableApplicationContext second = context(port, queue, 8);
				ConfigurableApplicationContext producer = context(port, queue, 0)) {
			NoOp noOp = producer.getBean(NoOp.class);
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
			// Warm-up: the same run, not measured (fresh contexts run interpreted code).
			endToEnd(noOp, "warm-", tasks, 0, deadline);
			RUNS.clear();
			double perSecond = endToEnd(noOp, "task-", tasks, 0, deadline);
			// At the target rate: is every task started soon after it was enqueued?
			LOAD_LAGS.clear();
			endToEnd(noOp, "paced-", PACED_RATE * 3, PACED_RATE, deadline);
			long[] loadLags = LOAD_LAGS.stream().mapToLong(Long::longValue).toArray();
			double drain = drain(producer.getBean(TaskQueue.class), queue, tasks, deadline);
			// Every task of both phases ran, once.
			long lost = 0;
			for (int i = 0; i < tasks; i++) {
				lost += RUNS.containsKey("task-" + i) ? 0 : 1;
				lost += RUNS.containsKey("drain-" + i) ? 0 : 1;
			}
			for (int i = 0; i < PACED_RATE * 3; i++) {
				lost += RUNS.containsKey("paced-" + i) ? 0 : 1;
			}
			long ranTwice = RUNS.values().stream().filter((count) -> count > 1).count();
			LAGS.clear();
			for (int i = 0; i < lagSamples; i++) {
				noOp.run("lag-" + i, Workloads.nowMicros());
				Measure.sleep(10);
			}
			while (LAGS.size() < lagSamples && System.nanoTime() < deadline) {
				Measure.sleep(5);
			}
			long[] lags = LAGS.stream().mapToLong(Long::longValue).toArray();
			return new Result(enqueues, perSecond, drain, Stats.percentile(lags, 50) / 1000.0,
					Stats.percentile(lags, 99) / 1000.0, Stats.percentile(loadLags, 50) / 1000.0,
					Stats.percentile(loadLags, 99) / 1000.0, lost, ranTwice, tasks);
		}
	}

	/** Tasks per second of the paced run, whose lag is measured. */
	static final int PACED_RATE = 10_000;

	/**
	 * Enqueue {@code tasks} from eight threads, flat out or at {@code rate} per second,
	 * and wait until all ran.
	 * @return tasks per second from the first enqueue to the last task done
	 */
	private static double endToEnd(NoOp noOp, String prefix, int tasks, int rate, long deadline) throws Exception {
		DONE.set(0);
		long start = System.nanoTime();
		onEightThreads(tasks, (i) -> {
			if (rate > 0) {
				long due = start + (long) (i * 1e9 / rate);
				long wait;
				while ((wait = due - System.nanoTime()) > 0) {
					LockSupport.parkNanos(wait);
				}
			}
			noOp.run(prefix + i, Workloads.nowMicros());
		});
		while (DONE.get() < tasks && System.nanoTime() < deadline) {
			Measure.sleep(5);
		}
		if (DONE.get() < tasks) {
			throw new IllegalStateException("only " + DONE.get() + " of " + tasks + " tasks ran");
		}
		return tasks * 1e9 / (LAST_DONE_NANOS.get() - start);
	}

	/**
	 * The workers' side alone: a backlog of tasks all due at one instant a few seconds
	 * ahead, enqueued while the workers idle; tasks per second from that instant to the
	 * last one done.
	 */
	private static double drain(TaskQueue taskQueue, String queue, int tasks, long deadline) throws Exception {
		DONE.set(0);
		long dueNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		onEightThreads(tasks, (i) -> {
			Duration delay = Duration.ofNanos(Math.max(0, dueNanos - System.nanoTime()));
			taskQueue.enqueue(queue, "drain-" + i, List.of("drain-" + i, 0L), delay);
		});
		// Normally all are due at one instant after the last enqueue; should enqueueing
		// take longer, the drain is counted from its end.
		long from = Math.max(dueNanos, System.nanoTime());
		while (DONE.get() < tasks && System.nanoTime() < deadline) {
			Measure.sleep(5);
		}
		if (DONE.get() < tasks) {
			throw new IllegalStateException("only " + DONE.get() + " of " + tasks + " backlog tasks ran");
		}
		return tasks * 1e9 / (LAST_DONE_NANOS.get() - from);
	}

	private static void enqueue(NoOp noOp, int tasks) throws Exception {
		onEightThreads(tasks, (i) -> noOp.run("task-" + i, Workloads.nowMicros()));
	}

	/**
	 * Run {@code task} for 0 to {@code count - 1}, spread over eight threads.
	 */
	private static void onEightThreads(int count, IntConsumer task) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int first = t;
				work.add(threads.submit(() -> {
					for (int i = first; i < count; i += 8) {
						task.accept(i);
					}
				}));
			}
			for (Future<?> future : work) {
				future.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static ConfigurableApplicationContext context(int port, String queue, int workers) {
		return new SpringApplicationBuilder(QueueApplication.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.run("--spring.data.redis.port=" + port, "--bench.queue=" + queue, "--redislock.queue.workers=" + workers,
					"--logging.level.root=WARN");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class,
			RedisTaskQueueAutoConfiguration.class })
	static class QueueApplication {

		@Bean
		NoOp noOp() {
			return new NoOp();
		}

	}

	static class NoOp {

		@QueuedTask(queue = "${bench.queue}", id = "#id")
		public void run(String id, long dueMicros) {
			if (id.startsWith("lag-")) {
				LAGS.add(Workloads.nowMicros() - dueMicros);
				return;
			}
			if (dueMicros > 0) {
				LOAD_LAGS.add(Workloads.nowMicros() - dueMicros);
			}
			RUNS.merge(id, 1, Integer::sum);
			DONE.incrementAndGet();
			LAST_DONE_NANOS.accumulateAndGet(System.nanoTime(), Math::max);
		}

	}

}
