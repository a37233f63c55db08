package io.github.redislock.internal.queue;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;

/**
 * The observations that carry a trace from the code that enqueues a task to the worker
 * that runs it, on any instance: the enqueue is observed with a {@link SenderContext}
 * (tracing injects the trace into its carrier, which is stored with the task), the run
 * with a {@link ReceiverContext} over the stored carrier (tracing continues that trace).
 * They feed tracing only: the starter's meter observation handler claims them, so they
 * add no timers beside the queue's counters.
 *
 * @since 0.1.0
 */
public final class TaskObservations {

	private TaskObservations() {
	}

	/**
	 * Observe enqueueing a task; the trace headers are in the context's carrier once the
	 * observation has started.
	 */
	static Observation enqueue(ObservationRegistry registry, String queue, String id) {
		return Observation.createNotStarted("redislock.task.enqueue", () -> new EnqueueContext(queue), registry)
			.contextualName("enqueue " + queue)
			.lowCardinalityKeyValue("queue", queue)
			.highCardinalityKeyValue("task.id", id);
	}

	/**
	 * Observe running a task, continuing the trace whose headers were stored with it.
	 */
	static Observation run(ObservationRegistry registry, String queue, String id, int attempt,
			Map<String, String> headers) {
		Supplier<RunContext> context = () -> new RunContext(queue, headers);
		return Observation.createNotStarted("redislock.task.run", context, registry)
			.contextualName("run " + queue)
			.lowCardinalityKeyValues(KeyValues.of("queue", queue))
			.highCardinalityKeyValue("task.id", id)
			.highCardinalityKeyValue("task.attempt", Integer.toString(attempt));
	}

	/**
	 * Whether an observation context is one of the task observations.
	 * @param context the context
	 * @return whether it is
	 */
	public static boolean isTaskContext(Observation.Context context) {
		return context instanceof EnqueueContext || context instanceof RunContext;
	}

	/**
	 * Enqueueing a task: tracing writes the trace headers into the carrier.
	 */
	static final class EnqueueContext extends SenderContext<Map<String, String>> {

		EnqueueContext(String queue) {
			super((carrier, key, value) -> {
				if (carrier != null) {
					carrier.put(key, value);
				}
			}, Kind.PRODUCER);
			setCarrier(new HashMap<>());
			setRemoteServiceName("redis");
			setRemoteServiceAddress(queue);
		}

	}

	/**
	 * Running a task: tracing reads the stored trace headers from the carrier.
	 */
	static final class RunContext extends ReceiverContext<Map<String, String>> {

		RunContext(String queue, Map<String, String> headers) {
			super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
			setCarrier(headers);
			setRemoteServiceName("redis");
		}

	}

}
