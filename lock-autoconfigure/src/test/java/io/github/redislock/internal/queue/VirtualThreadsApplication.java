package io.github.redislock.internal.queue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.QueuedTask;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * An application with {@code spring.threads.virtual.enabled=true}, run by
 * {@link QueueThreadsTests} on a JDK with virtual threads: enqueues one task and reports
 * on stdout the thread it ran on.
 */
public final class VirtualThreadsApplication {

	static final CountDownLatch RAN = new CountDownLatch(1);

	static volatile String report = "";

	private VirtualThreadsApplication() {
	}

	public static void main(String[] args) throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.run("--spring.data.redis.host=" + args[0], "--spring.data.redis.port=" + args[1],
					"--test.queue=" + args[2], "--spring.threads.virtual.enabled=true", "--spring.main.banner-mode=off",
					"--logging.level.root=warn")) {
			context.getBean(Tasks.class).run();
			if (!RAN.await(30, TimeUnit.SECONDS)) {
				System.out.println("RAN never");
			}
			boolean platformPoller = Thread.getAllStackTraces()
				.keySet()
				.stream()
				.anyMatch((thread) -> thread.getName().startsWith("redislock-queue-poller-"));
			System.out.println("RAN " + report + " poller=" + !platformPoller + " name=" + name());
		}
		catch (Throwable ex) {
			System.out.println("RAN failed " + ex);
		}
		System.exit(0);
	}

	private static String name() {
		return threadName.replaceAll("[0-9]+$", "");
	}

	static volatile String threadName = "";

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Tasks.class)
	static class Application {

	}

	static class Tasks {

		@QueuedTask(queue = "${test.queue}")
		public void run() {
			threadName = Thread.currentThread().getName();
			report = "virtual=" + QueueThreadsTests.isVirtual(Thread.currentThread());
			RAN.countDown();
		}

	}

}
