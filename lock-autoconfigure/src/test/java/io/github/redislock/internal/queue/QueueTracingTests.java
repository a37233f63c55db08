package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import brave.Tracing;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.sampler.Sampler;
import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.autoconfigure.RedisTaskQueueAutoConfiguration;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A queued task continues the trace of the code that enqueued it, on another instance,
 * with a real tracer (Brave through Micrometer Tracing) on the observations.
 */
@ExtendWith(RedisExtension.class)
class QueueTracingTests {

	/** The trace and parent span each run saw, by the task's argument. */
	static final Map<String, String[]> SEEN = new ConcurrentHashMap<>();

	static volatile Tracer tracer = Tracer.NOOP;

	private final Tracing tracing = Tracing.newBuilder()
		.currentTraceContext(ThreadLocalCurrentTraceContext.newBuilder().build())
		.sampler(Sampler.ALWAYS_SAMPLE)
		.build();

	private final ObservationRegistry observations = ObservationRegistry.create();

	private final ApplicationContextRunner runner;

	private final String queue = "traced-" + UUID.randomUUID();

	QueueTracingTests(RedisServer redis) {
		BraveTracer braveTracer = new BraveTracer(this.tracing.tracer(),
				new BraveCurrentTraceContext(this.tracing.currentTraceContext()), new BraveBaggageManager());
		BravePropagator propagator = new BravePropagator(this.tracing);
		this.observations.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(braveTracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(braveTracer, propagator),
					new DefaultTracingObservationHandler(braveTracer)));
		tracer = braveTracer;
		this.runner = LockApplicationContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisTaskQueueAutoConfiguration.class))
			.withPropertyValues("test.queue=" + this.queue, "redislock.queue.poll-interval=200ms")
			.withBean(ObservationRegistry.class, () -> this.observations)
			.withBean(Tasks.class);
	}

	@AfterEach
	void close() {
		tracer = Tracer.NOOP;
		this.tracing.close();
	}

	@Test
	void aTaskRunByAnotherInstanceContinuesTheEnqueuingCodesTrace() {
		this.runner.withPropertyValues("redislock.queue.workers=0").run((producer) -> this.runner.run((worker) -> {
			String argument = this.queue + "-traced";
			Observation request = Observation.start("request", this.observations);
			String traceId;
			String requestSpan;
			try (Observation.Scope scope = request.openScope()) {
				Span current = tracer.currentSpan();
				assertThat(current).isNotNull();
				traceId = current.context().traceId();
				requestSpan = current.context().spanId();
				producer.getBean(Tasks.class).record(argument);
			}
			finally {
				request.stop();
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.containsKey(argument));
			String[] seen = SEEN.get(argument);
			assertThat(seen[0]).as("the run's trace").isEqualTo(traceId);
			assertThat(seen[1]).as("the run's span is a new one").isNotEqualTo(requestSpan);
		}));
	}

	@Test
	void withoutAnEnqueuingTraceARunStartsItsOwn() {
		this.runner.run((context) -> {
			String argument = this.queue + "-untraced";
			context.getBean(Tasks.class).record(argument);
			await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.containsKey(argument));
			assertThat(SEEN.get(argument)[0]).isNotEmpty();
		});
	}

	static class Tasks {

		@QueuedTask(queue = "${test.queue}")
		public void record(String argument) {
			Span current = tracer.currentSpan();
			SEEN.put(argument,
					(current != null) ? new String[] { current.context().traceId(), current.context().spanId() }
							: new String[] { "", "" });
		}

	}

}
