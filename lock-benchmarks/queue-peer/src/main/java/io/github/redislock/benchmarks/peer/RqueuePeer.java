package io.github.redislock.benchmarks.peer;

import com.github.sonus21.rqueue.annotation.RqueueListener;
import com.github.sonus21.rqueue.config.SimpleRqueueListenerContainerFactory;
import com.github.sonus21.rqueue.core.RqueueMessageEnqueuer;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Rqueue's side of the queue benchmark: a Spring Boot 3 application with Rqueue's
 * starter, as its users run it, as a producer or a worker instance. Arguments: the Redis
 * port, {@code producer} or {@code worker}, the queues (comma-separated; the tasks go to
 * the first), the workers per queue and the polling interval in ms (0: Rqueue's default,
 * 200 ms). Rqueue's settings are its defaults but for
 * {@code rqueue.latest.version.check.enabled=false} (no call out of the machine) and, on
 * the producer, {@code rqueue.system.mode=PRODUCER}.
 */
@SpringBootApplication
public class RqueuePeer {

	public static void main(String[] args) throws Exception {
		String port = args[0];
		boolean producer = args[1].equals("producer");
		String queues = args[2];
		String workers = args[3];
		POLLING_INTERVAL = Long.parseLong(args[4]);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(RqueuePeer.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.run("--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + port, "--bench.queues=" + queues,
					"--bench.workers=" + workers, "--rqueue.latest.version.check.enabled=false",
					"--rqueue.system.mode=" + (producer ? "PRODUCER" : "BOTH"), "--logging.level.root=WARN");
		String queue = queues.split(",")[0];
		RqueueMessageEnqueuer enqueuer = context.getBean(RqueueMessageEnqueuer.class);
		QueuePeer.serve(producer ? (phase, index, micros) -> {
			if (enqueuer.enqueue(queue, new Task(phase, index, micros)) == null) {
				throw new IllegalStateException("Rqueue refused task " + phase + "-" + index);
			}
		} : null, context::close);
		System.exit(0);
	}

	/** Rqueue's polling interval in ms, 0 for its default (200 ms). */
	static long POLLING_INTERVAL;

	@Bean
	SimpleRqueueListenerContainerFactory simpleRqueueListenerContainerFactory() {
		SimpleRqueueListenerContainerFactory factory = new SimpleRqueueListenerContainerFactory();
		if (POLLING_INTERVAL > 0) {
			factory.setPollingInterval(POLLING_INTERVAL);
		}
		return factory;
	}

	@Bean
	NoOp noOp() {
		return new NoOp();
	}

	/**
	 * The no-op task: records its run.
	 */
	public static class NoOp {

		@RqueueListener(value = "${bench.queues}", concurrency = "${bench.workers}")
		public void run(Task task) {
			QueuePeer.ran(task.getPhase(), task.getIndex(), task.getEnqueuedMicros());
		}

	}

	/**
	 * A task's payload, as Rqueue's users send one: an object its converter writes as
	 * JSON.
	 */
	public static class Task {

		private String phase;

		private int index;

		private long enqueuedMicros;

		public Task() {
		}

		Task(String phase, int index, long enqueuedMicros) {
			this.phase = phase;
			this.index = index;
			this.enqueuedMicros = enqueuedMicros;
		}

		public String getPhase() {
			return this.phase;
		}

		public void setPhase(String phase) {
			this.phase = phase;
		}

		public int getIndex() {
			return this.index;
		}

		public void setIndex(int index) {
			this.index = index;
		}

		public long getEnqueuedMicros() {
			return this.enqueuedMicros;
		}

		public void setEnqueuedMicros(long enqueuedMicros) {
			this.enqueuedMicros = enqueuedMicros;
		}

	}

}
