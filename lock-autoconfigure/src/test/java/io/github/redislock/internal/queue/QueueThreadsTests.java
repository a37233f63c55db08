package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.queue.TaskContext;
import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.MDC;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.TaskDecorator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The threads queued tasks run on: built by Spring Boot's executor builders, named after
 * their queue, wrapped by the application's {@link TaskDecorator}, on virtual threads
 * when {@code spring.threads.virtual.enabled} is set, and with the logging context of the
 * code that enqueued the task.
 */
@ExtendWith(RedisExtension.class)
class QueueThreadsTests {

	/** What each run saw, by the task's argument. */
	static final Map<String, Seen> SEEN = new ConcurrentHashMap<>();

	static final ThreadLocal<String> DECORATED = new ThreadLocal<>();

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	private final String queue = "threads-" + UUID.randomUUID();

	QueueThreadsTests(RedisServer redis) {
		this.redis = redis;
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("test.queue=" + this.queue, "redislock.queue.poll-interval=200ms")
			.withBean(Tasks.class);
	}

	@AfterEach
	void clearMdc() {
		MDC.clear();
	}

	private Seen awaitRun(String argument) {
		return awaitRun(argument, Duration.ofSeconds(30));
	}

	private Seen awaitRun(String argument, Duration atMost) {
		await().atMost(atMost).alias("run of " + argument).until(() -> SEEN.containsKey(argument));
		return SEEN.get(argument);
	}

	@Test
	void theEnqueuingCodesMdcIsInPlaceWhileAWorkerOfAnotherInstanceRunsTheTask() {
		this.runner.withPropertyValues("redislock.queue.workers=0").run((producer) -> {
			this.runner.run((worker) -> {
				String first = this.queue + "-traced";
				MDC.put("requestId", "r-42");
				MDC.put("traceId", "4bf92f3577b34da6a3ce929d0e0e4736");
				producer.getBean(Tasks.class).record(first);
				MDC.clear();
				Seen traced = awaitRun(first);
				assertThat(traced.mdc()).containsEntry("requestId", "r-42")
					.containsEntry("traceId", "4bf92f3577b34da6a3ce929d0e0e4736");
				// The next task, enqueued without a context, runs without the previous
				// one.
				String second = this.queue + "-plain";
				producer.getBean(Tasks.class).record(second);
				assertThat(awaitRun(second).mdc()).isEmpty();
			});
		});
	}

	@Test
	void workersAreNamedAfterTheirQueueAndWrappedByTheApplicationsTaskDecorator() {
		TaskDecorator decorator = (runnable) -> () -> {
			DECORATED.set("decorated");
			try {
				runnable.run();
			}
			finally {
				DECORATED.remove();
			}
		};
		this.runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
			.withBean(TaskDecorator.class, () -> decorator)
			.run((context) -> {
				String argument = this.queue + "-decorated";
				context.getBean(Tasks.class).record(argument);
				Seen seen = awaitRun(argument);
				assertThat(seen.decorated()).isEqualTo("decorated");
				assertThat(seen.thread()).startsWith("redislock-queue-" + this.queue + ".record-");
				assertThat(seen.virtual()).isFalse();
			});
	}

	@Test
	void withoutTaskExecutionAutoConfigurationTheDecoratorStillApplies() {
		this.runner.withBean(TaskDecorator.class, () -> (runnable) -> () -> {
			DECORATED.set("plain builder");
			try {
				runnable.run();
			}
			finally {
				DECORATED.remove();
			}
		}).run((context) -> {
			String argument = this.queue + "-fallback";
			context.getBean(Tasks.class).record(argument);
			assertThat(awaitRun(argument).decorated()).isEqualTo("plain builder");
		});
	}

	@Test
	void aHandOffToAWorkerThatFailsIsAFailedAttemptAndGivesTheWorkerBack() {
		AtomicInteger handOffs = new AtomicInteger();
		// Decorates the pollers' threads too: counts only hand-offs, which the poller
		// makes.
		TaskDecorator failingOnce = (runnable) -> {
			if (Thread.currentThread().getName().startsWith("redislock-queue-poller-")
					&& handOffs.incrementAndGet() == 1) {
				throw new IllegalStateException("decorator failure on purpose");
			}
			return runnable;
		};
		this.runner.withPropertyValues("redislock.queue.workers=1", "redislock.queue.backoff.initial=10ms")
			.withBean(TaskDecorator.class, () -> failingOnce)
			.run((context) -> {
				String first = this.queue + "-handed-off";
				context.getBean(Tasks.class).attempted(first);
				Seen seen = awaitRun(first, Duration.ofSeconds(10));
				assertThat(seen.attempt()).as("the failed hand-off counts as an attempt").isEqualTo(2);
				// The worker slot of the failed hand-off came back: one worker still runs
				// the next task.
				String second = this.queue + "-next";
				context.getBean(Tasks.class).attempted(second);
				assertThat(awaitRun(second, Duration.ofSeconds(10)).attempt()).isEqualTo(1);
				assertThat(handOffs).hasValue(3);
			});
	}

	@Test
	void withVirtualThreadsEnabledTasksRunOnVirtualThreads() {
		Assumptions.assumeTrue(ChildJvm.javaHomeWithVirtualThreads().isPresent(),
				"no JDK 21 or later found (set -Dredislock.test.java21.home)");
		try (ChildJvm child = ChildJvm.startOn(ChildJvm.javaHomeWithVirtualThreads().get(),
				VirtualThreadsApplication.class, this.redis.host(), Integer.toString(this.redis.port()), this.queue)) {
			String[] result = child.await("RAN", Duration.ofSeconds(60));
			assertThat(result).containsExactly("virtual=true", "poller=true",
					"name=redislock-queue-" + this.queue + "-");
		}
	}

	record Seen(String thread, boolean virtual, Map<String, String> mdc, String decorated, int attempt) {
	}

	static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			return false;
		}
	}

	static class Tasks {

		@QueuedTask(queue = "${test.queue}.record")
		public void record(String argument) {
			Map<String, String> mdc = MDC.getCopyOfContextMap();
			SEEN.put(argument, new Seen(Thread.currentThread().getName(), isVirtual(Thread.currentThread()),
					(mdc != null) ? mdc : Map.of(), String.valueOf(DECORATED.get()), TaskContext.attempt()));
		}

		@QueuedTask(queue = "${test.queue}.attempted")
		public void attempted(String argument) {
			record(argument);
		}

	}

}
