package io.github.redislock.benchmarks;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.benchmarks.peer.QueuePeer;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Our side of the queue benchmark beside Rqueue ({@link QueuePeers}): a producer or a
 * worker instance of {@code @QueuedTask} in a process of its own, driven by
 * {@link QueuePeer}'s protocol. Arguments: the Redis port, {@code producer} or
 * {@code worker}, the queue, the number of queues (1, or 20: the queue and 19 more named
 * after it) and the workers per queue. Settings are the starter's defaults but for
 * {@code redislock.queue.workers}.
 */
public final class OurQueuePeer {

	private OurQueuePeer() {
	}

	public static void main(String[] args) throws Exception {
		String port = args[0];
		boolean producer = args[1].equals("producer");
		String queue = args[2];
		int queues = Integer.parseInt(args[3]);
		String workers = producer ? "0" : args[4];
		ConfigurableApplicationContext context = new SpringApplicationBuilder(
				(queues > 1) ? TwentyQueuesApplication.class : PeerApplication.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.run("--spring.data.redis.port=" + port, "--bench.queue=" + queue, "--redislock.queue.workers=" + workers,
					"--logging.level.root=WARN");
		NoOp noOp = context.getBean(NoOp.class);
		QueuePeer.serve(producer ? noOp::run : null, context::close);
		System.exit(0);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class,
			RedisTaskQueueAutoConfiguration.class })
	static class PeerApplication {

		@Bean
		NoOp noOp() {
			return new NoOp();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(PeerApplication.class)
	static class TwentyQueuesApplication {

		@Bean
		NineteenMore nineteenMore() {
			return new NineteenMore();
		}

	}

	/**
	 * The no-op task: records its run.
	 */
	static class NoOp {

		@QueuedTask(queue = "${bench.queue}", id = "#phase + '-' + #index")
		public void run(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

	}

	/**
	 * Nineteen more queues, for the idle cost of an instance with twenty.
	 */
	static class NineteenMore {

		@QueuedTask(queue = "${bench.queue}-2", id = "#phase + '-' + #index")
		public void run2(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-3", id = "#phase + '-' + #index")
		public void run3(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-4", id = "#phase + '-' + #index")
		public void run4(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-5", id = "#phase + '-' + #index")
		public void run5(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-6", id = "#phase + '-' + #index")
		public void run6(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-7", id = "#phase + '-' + #index")
		public void run7(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-8", id = "#phase + '-' + #index")
		public void run8(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-9", id = "#phase + '-' + #index")
		public void run9(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-10", id = "#phase + '-' + #index")
		public void run10(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-11", id = "#phase + '-' + #index")
		public void run11(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-12", id = "#phase + '-' + #index")
		public void run12(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-13", id = "#phase + '-' + #index")
		public void run13(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-14", id = "#phase + '-' + #index")
		public void run14(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-15", id = "#phase + '-' + #index")
		public void run15(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-16", id = "#phase + '-' + #index")
		public void run16(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-17", id = "#phase + '-' + #index")
		public void run17(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-18", id = "#phase + '-' + #index")
		public void run18(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-19", id = "#phase + '-' + #index")
		public void run19(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

		@QueuedTask(queue = "${bench.queue}-20", id = "#phase + '-' + #index")
		public void run20(String phase, int index, long enqueuedMicros) {
			QueuePeer.ran(phase, index, enqueuedMicros);
		}

	}

}
