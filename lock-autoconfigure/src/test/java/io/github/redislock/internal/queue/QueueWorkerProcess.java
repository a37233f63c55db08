package io.github.redislock.internal.queue;

import java.io.IOException;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A queue worker in a JVM of its own (run by {@link io.github.redislock.test.ChildJvm}):
 * an application whose one {@code @QueuedTask} method reports {@code RUNNING id} and then
 * never finishes. Arguments: Redis port, queue name; it reports {@code READY} once its
 * workers run.
 */
public final class QueueWorkerProcess {

	private QueueWorkerProcess() {
	}

	public static void main(String[] args) throws IOException {
		new SpringApplicationBuilder(WorkerApplication.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.run("--spring.data.redis.port=" + args[0], "--worker.queue=" + args[1], "--redislock.queue.workers=1",
					"--redislock.queue.visibility-timeout=2s", "--spring.main.banner-mode=off");
		System.out.println("READY");
		System.out.flush();
		// The workers are daemon threads: run until the test closes stdin or kills us.
		while (System.in.read() >= 0) {
			// nothing to do
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
			RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class,
			RedisTaskQueueAutoConfiguration.class })
	static class WorkerApplication {

		@Bean
		Stuck stuck() {
			return new Stuck();
		}

	}

	static class Stuck {

		@QueuedTask(queue = "${worker.queue}", id = "#id")
		public void work(String id) throws InterruptedException {
			System.out.println("RUNNING " + id);
			System.out.flush();
			Thread.sleep(Long.MAX_VALUE);
		}

	}

}
