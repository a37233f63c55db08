package io.github.redislock.internal.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.redislock.admin.DeadLetterPreview;
import io.github.redislock.admin.TaskPreview;
import io.github.redislock.internal.lock.LettuceScripts;
import io.github.redislock.queue.DeadLetters;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import io.github.redislock.queue.TaskQueue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * {@link TaskQueue} and {@link DeadLetters} on Redis, one Lua script per operation (key
 * layout in {@link QueueKeys}). Also carries out the workers' claim protocol. Numbers go
 * to Redis in ASCII digits whatever the default locale.
 *
 * @since 0.1.0
 */
public class RedisTaskQueue implements TaskQueue, DeadLetters {

	private static final RedisScript<Long> ENQUEUE = script("enqueue.lua", Long.class);

	/** Names this instance in its enqueue call ids. */
	private final String instance = java.util.UUID.randomUUID().toString();

	/** Numbers this instance's enqueue calls. */
	private final java.util.concurrent.atomic.AtomicLong enqueueCalls = new java.util.concurrent.atomic.AtomicLong();

	/** Numbers this instance's claim calls. */
	private final java.util.concurrent.atomic.AtomicLong claimCalls = new java.util.concurrent.atomic.AtomicLong();

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> POP = script("pop.lua", List.class);

	private static final RedisScript<Long> DEQUEUE = script("dequeue.lua", Long.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> TASKS = script("tasks.lua", List.class);

	/**
	 * Added to the poll interval for when a worker that found nothing to claim looks
	 * again at the latest (its poller may be a little late).
	 */
	private static final long IDLE_MARGIN_MILLIS = 250;

	/** Longest page of tasks one call of {@link #upcoming} returns. */
	private static final int MAX_PAGE = 1000;

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> CLAIM = script("claim.lua", List.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SETTLE = script("settle.lua", List.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> DEAD_LETTERS = script("dead-letters.lua", List.class);

	private static final RedisScript<Long> DEAD_LETTER_COUNT = script("dead-letters.lua", Long.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> DEPTHS = script("depths.lua", List.class);

	private final StringRedisTemplate redis;

	/**
	 * The hot path's scripts (enqueue, claim, settle) on the shared native Lettuce
	 * connection, when there is one: Spring Data Redis' template costs more client time
	 * per call than the script.
	 */
	private final @Nullable LettuceScripts lettuce;

	/** The application's mapper, with default typing off. */
	private final JsonMapper json;

	private final QueueKeys keys;

	private volatile PayloadLimit payloadLimit = PayloadLimit.DEFAULT;

	private volatile QueueObserver observer = new QueueObserver() {
	};

	private volatile ObservationRegistry observations = ObservationRegistry.NOOP;

	/**
	 * Create a queue.
	 * @param connectionFactory the connections
	 * @param json the application's mapper: payloads are written and read with one
	 * derived from it (its modules and settings apply) with default typing off, so that a
	 * payload can never name the class of a value beyond what the declared types allow
	 * (types that ask for a type id themselves, with {@code @JsonTypeInfo}, keep it)
	 * @param keyPrefix the prefix of the queue keys
	 */
	public RedisTaskQueue(RedisConnectionFactory connectionFactory, JsonMapper json, String keyPrefix) {
		this.redis = new StringRedisTemplate(connectionFactory);
		this.lettuce = LETTUCE_PRESENT ? LettuceScripts.of(connectionFactory) : null;
		this.json = json.rebuild().deactivateDefaultTyping().build();
		this.keys = new QueueKeys(keyPrefix);
	}

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisTaskQueue.class.getClassLoader());

	private @Nullable Long run(RedisScript<Long> script, List<String> keys, String... args) {
		LettuceScripts lettuce = this.lettuce;
		if (lettuce != null) {
			return lettuce.run(script, LettuceScripts.bytes(keys), LettuceScripts.bytes(List.of(args)));
		}
		return this.redis.execute(script, keys, (Object[]) args);
	}

	@SuppressWarnings("rawtypes")
	private @Nullable List<?> runList(RedisScript<List> script, List<String> keys, List<String> args) {
		LettuceScripts lettuce = this.lettuce;
		if (lettuce != null) {
			return lettuce.runList(script, LettuceScripts.bytes(keys), LettuceScripts.bytes(args));
		}
		return this.redis.execute(script, keys, args.toArray());
	}

	private static <T> RedisScript<T> script(String name, Class<T> type) {
		// Loaded once, as text (a script made from a resource would check the resource
		// for changes on every call), behind the helpers every queue script shares.
		return RedisScript.of(text("queue.lua") + "\n" + text(name), type);
	}

	private static String text(String name) {
		try {
			return new ClassPathResource(name, RedisTaskQueue.class).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the script " + name, ex);
		}
	}

	@Override
	public boolean enqueue(String queue, String id, @Nullable Object payload, @Nullable Duration delay) {
		return enqueueJson(queue, id, this.json.writeValueAsString(payload), delay, null, false, Duration.ZERO);
	}

	@Override
	public boolean enqueue(String queue, String id, @Nullable Object payload, @Nullable Duration delay,
			Duration dedupFor) {
		checkDedupFor(dedupFor);
		return enqueueJson(queue, id, this.json.writeValueAsString(payload), delay, null, false, dedupFor);
	}

	@Override
	public void enqueueOrReplace(String queue, String id, @Nullable Object payload, @Nullable Duration delay) {
		enqueueJson(queue, id, this.json.writeValueAsString(payload), delay, null, true, Duration.ZERO);
	}

	/**
	 * Enqueue a {@code @QueuedTask} call whose arguments are already written as JSON.
	 * @param queue the queue name
	 * @param id the task id
	 * @param payload the arguments, as a JSON array
	 * @param delay how long from now until the task is due, when {@code runAt} is
	 * {@code null}
	 * @param runAt when the task is due (by the Redis server's clock; in the past: now),
	 * or {@code null}
	 * @param replace whether to replace a waiting task with the same id
	 * @param dedupFor the dedup window (zero: none; see
	 * {@link #enqueue(String, String, Object, Duration, Duration)})
	 * @param version the version of the method the payload is written for (see
	 * {@link TaskVersion#tag})
	 * @return whether enqueued (or replaced)
	 */
	public boolean enqueueCall(String queue, String id, String payload, @Nullable Duration delay,
			@Nullable Instant runAt, boolean replace, Duration dedupFor, String version) {
		return enqueueJson(queue, id, payload, delay, runAt, replace, dedupFor, version,
				this.instance + ":" + this.enqueueCalls.incrementAndGet());
	}

	/** The longest dedup window. */
	public static final Duration MAX_DEDUP_FOR = Duration.ofDays(366);

	/**
	 * Check a dedup window: zero (none), or from 1 ms to {@link #MAX_DEDUP_FOR}.
	 * @throws IllegalArgumentException saying what is wrong
	 */
	public static void checkDedupFor(Duration dedupFor) {
		Assert.notNull(dedupFor, "'dedupFor' must not be null");
		if (!dedupFor.isZero()
				&& (dedupFor.compareTo(Duration.ofMillis(1)) < 0 || dedupFor.compareTo(MAX_DEDUP_FOR) > 0)) {
			throw new IllegalArgumentException("dedupFor " + dedupFor + " is out of range: zero (no window), or from"
					+ " 1ms to " + MAX_DEDUP_FOR.toDays() + " days");
		}
	}

	private boolean enqueueJson(String queue, String id, String payload, @Nullable Duration delay,
			@Nullable Instant runAt, boolean replace, Duration dedupFor) {
		return enqueueJson(queue, id, payload, delay, runAt, replace, dedupFor, "",
				this.instance + ":" + this.enqueueCalls.incrementAndGet());
	}

	/**
	 * Enqueue as the enqueue call {@code call}: the call made again with the same id (as
	 * the client does when an answer was lost in a reconnect) finds the task it enqueued
	 * still waiting and answers as the first did.
	 */
	boolean enqueueJson(String queue, String id, String payload, @Nullable Duration delay, @Nullable Instant runAt,
			boolean replace, Duration dedupFor, String version, String call) {
		Assert.hasText(id, "'id' must not be empty");
		PayloadLimit.checkId(queue, id);
		this.payloadLimit.check(queue, id, payload);
		long delayMillis = (delay != null) ? Math.max(0, delay.toMillis()) : 0;
		String at = (runAt != null) ? Long.toString(runAt.toEpochMilli()) : "";
		String window = Long.toString(Math.max(0, dedupFor.toMillis()));
		Long result;
		if (this.observations.isNoop()) {
			result = run(ENQUEUE, this.keys.all(queue), id, payload, Long.toString(delayMillis), replace ? "1" : "0",
					this.keys.channel(), queue, CallerContext.capture(this.json, Map.of()), at, window, call, version);
		}
		else {
			// Tracing writes the trace into the enqueue's carrier, stored with the task.
			Observation observation = TaskObservations.enqueue(this.observations, queue, id).start();
			try (Observation.Scope scope = observation.openScope()) {
				@SuppressWarnings("unchecked")
				Map<String, String> headers = ((TaskObservations.EnqueueContext) observation.getContext()).getCarrier();
				result = run(ENQUEUE, this.keys.all(queue), id, payload, Long.toString(delayMillis),
						replace ? "1" : "0", this.keys.channel(), queue,
						CallerContext.capture(this.json, (headers != null) ? headers : Map.of()), at, window, call,
						version);
			}
			catch (RuntimeException ex) {
				observation.error(ex);
				throw ex;
			}
			finally {
				observation.stop();
			}
		}
		boolean enqueued = result != null && result == 1;
		if (enqueued) {
			this.observer.enqueued(queue);
		}
		return enqueued;
	}

	@Override
	public List<TaskEntry> pop(String queue, int count) {
		return entries(queue, count, true);
	}

	@Override
	public List<TaskEntry> top(String queue, int count) {
		return entries(queue, count, false);
	}

	private List<TaskEntry> entries(String queue, int count, boolean remove) {
		Assert.isTrue(count > 0, "'count' must be positive");
		return entries(this.redis.execute(POP, this.keys.all(queue), Integer.toString(count), remove ? "1" : "0"));
	}

	private static List<TaskEntry> entries(@Nullable List<?> flat) {
		List<TaskEntry> entries = new ArrayList<>();
		if (flat != null) {
			for (int i = 0; i + 2 < flat.size(); i += 3) {
				entries.add(new TaskEntry((String) flat.get(i), Double.parseDouble((String) flat.get(i + 1)),
						(String) flat.get(i + 2)));
			}
		}
		return entries;
	}

	@Override
	public boolean dequeue(String queue, String id, double score) {
		Long result = this.redis.execute(DEQUEUE, this.keys.all(queue), id, number(score));
		return result != null && result == 1;
	}

	@Override
	public long size(String queue) {
		// Ready and parked, counted in one script.
		QueueDepths depths = depths(queue);
		return depths.ready() + depths.delayed();
	}

	@Override
	public boolean cancel(String queue, String id) {
		Assert.hasText(id, "'id' must not be empty");
		List<?> result = this.redis.execute(TASKS, this.keys.all(queue), "cancel", id);
		return result != null && !result.isEmpty() && ((Number) result.get(0)).longValue() > 0;
	}

	@Override
	public Optional<TaskEntry> find(String queue, String id) {
		Assert.hasText(id, "'id' must not be empty");
		return entries(this.redis.execute(TASKS, this.keys.all(queue), "find", id)).stream().findFirst();
	}

	@Override
	public List<TaskEntry> upcoming(String queue, int count) {
		Assert.isTrue(count > 0, "'count' must be positive");
		return entries(this.redis.execute(TASKS, this.keys.all(queue), "upcoming",
				Integer.toString(Math.min(count, MAX_PAGE))));
	}

	@Override
	public void pause(String queue) {
		this.redis.execute(TASKS, this.keys.all(queue), "pause");
	}

	@Override
	public void resume(String queue) {
		this.redis.execute(TASKS, this.keys.all(queue), "resume", this.keys.channel(), queue);
	}

	@Override
	public boolean isPaused(String queue) {
		return Boolean.TRUE.equals(this.redis.hasKey(this.keys.paused(queue)));
	}

	@Override
	public List<DeadTask> list(String queue, int count) {
		Assert.isTrue(count > 0, "'count' must be positive");
		List<?> flat = this.redis.execute(DEAD_LETTERS, this.keys.all(queue), "list", Integer.toString(count));
		List<DeadTask> result = new ArrayList<>();
		for (int i = 0; flat != null && i + 3 < flat.size(); i += 4) {
			result.add(deadTask(flat, i));
		}
		return result;
	}

	/**
	 * Return the oldest dead letters with their errors and payloads cut to
	 * {@code previewBytes} in Redis (a large one never leaves the server whole), as many
	 * as fit in {@code budgetBytes}.
	 * @param queue the queue name
	 * @param count the most to return
	 * @param previewBytes the most bytes of each error and payload
	 * @param budgetBytes the most bytes of ids and previews together (the first entry is
	 * always in)
	 * @return the previews, and whether all of the {@code count} asked for are in
	 */
	public Page<DeadLetterPreview> deadLetterPreviews(String queue, int count, int previewBytes, int budgetBytes) {
		Assert.isTrue(count > 0, "'count' must be positive");
		List<?> flat = this.redis.execute(DEAD_LETTERS, this.keys.all(queue), "previews", Integer.toString(count),
				Integer.toString(previewBytes), Integer.toString(budgetBytes));
		List<DeadLetterPreview> result = new ArrayList<>();
		int i = 0;
		for (; flat != null && i + 6 < flat.size(); i += 7) {
			result.add(new DeadLetterPreview((String) flat.get(i), Long.parseLong((String) flat.get(i + 1)) / 1000,
					Integer.parseInt((String) flat.get(i + 2)), (String) flat.get(i + 3),
					Long.parseLong((String) flat.get(i + 4)), (String) flat.get(i + 5),
					Long.parseLong((String) flat.get(i + 6))));
		}
		return new Page<>(result, flat == null || i >= flat.size() || "1".equals(flat.get(i)));
	}

	/**
	 * Return the next delayed tasks with their payloads cut to {@code previewBytes} in
	 * Redis, as many as fit in {@code budgetBytes}.
	 * @param queue the queue name
	 * @param count the most to return
	 * @param previewBytes the most bytes of each payload
	 * @param budgetBytes the most bytes of ids and previews together (the first entry is
	 * always in)
	 * @return the previews, and whether all of the {@code count} asked for are in
	 */
	public Page<TaskPreview> upcomingPreviews(String queue, int count, int previewBytes, int budgetBytes) {
		Assert.isTrue(count > 0, "'count' must be positive");
		List<?> flat = this.redis.execute(TASKS, this.keys.all(queue), "upcoming",
				Integer.toString(Math.min(count, MAX_PAGE)), Integer.toString(previewBytes),
				Integer.toString(budgetBytes));
		List<TaskPreview> result = new ArrayList<>();
		int i = 0;
		for (; flat != null && i + 3 < flat.size(); i += 4) {
			result.add(new TaskPreview((String) flat.get(i), (long) Double.parseDouble((String) flat.get(i + 1)),
					(String) flat.get(i + 2), Long.parseLong((String) flat.get(i + 3))));
		}
		return new Page<>(result, flat == null || i >= flat.size() || "1".equals(flat.get(i)));
	}

	/**
	 * Return one dead letter whole.
	 * @param queue the queue name
	 * @param id the task id
	 * @return the dead task, or empty when there is none of that id
	 */
	public Optional<DeadTask> deadLetter(String queue, String id) {
		Assert.hasText(id, "'id' must not be empty");
		List<?> flat = this.redis.execute(DEAD_LETTERS, this.keys.all(queue), "get", id);
		if (flat == null || flat.size() < 4) {
			return Optional.empty();
		}
		return Optional.of(deadTask(flat, 0));
	}

	/**
	 * Delete one dead letter.
	 * @param queue the queue name
	 * @param id the task id
	 * @return whether there was one
	 */
	public boolean deleteDeadLetter(String queue, String id) {
		Assert.hasText(id, "'id' must not be empty");
		Long result = this.redis.execute(DEAD_LETTER_COUNT, this.keys.all(queue), "delete", id);
		return result != null && result == 1;
	}

	private DeadTask deadTask(List<?> flat, int i) {
		JsonNode details = this.json.readTree((String) flat.get(i + 2));
		long diedAtMicros = Long.parseLong((String) flat.get(i + 1));
		return new DeadTask((String) flat.get(i), diedAtMicros / 1000, details.path("attempts").asInt(),
				details.path("error").asString(""), (String) flat.get(i + 3));
	}

	@Override
	public boolean requeue(String queue, String id) {
		Long result = this.redis.execute(DEAD_LETTER_COUNT, this.keys.all(queue), "requeue", id, this.keys.channel(),
				queue);
		return result != null && result == 1;
	}

	@Override
	public long purge(String queue) {
		Long result = this.redis.execute(DEAD_LETTER_COUNT, this.keys.all(queue), "purge");
		return (result != null) ? result : 0;
	}

	/**
	 * Return how many tasks of a queue are in each state.
	 * @param queue the queue name
	 * @return the depths
	 */
	public QueueDepths depths(String queue) {
		List<?> result = this.redis.execute(DEPTHS, this.keys.all(queue));
		long[] values = new long[5];
		for (int i = 0; result != null && i < values.length && i < result.size(); i++) {
			values[i] = ((Number) result.get(i)).longValue();
		}
		boolean paused = result != null && result.size() > 5 && ((Number) result.get(5)).longValue() == 1;
		return new QueueDepths(values[0], values[1], values[2], values[3], values[4], paused);
	}

	/**
	 * Set the registry of the observations that carry a trace from the enqueuing code to
	 * the worker that runs the task.
	 * @param observations the registry
	 */
	public void setObservationRegistry(ObservationRegistry observations) {
		this.observations = observations;
	}

	ObservationRegistry observations() {
		return this.observations;
	}

	/**
	 * Refuse a payload larger than the limit set by {@link #setPayloadLimit}.
	 * @param queue the queue
	 * @param id the task id
	 * @param payload the payload as stored
	 * @throws IllegalArgumentException naming the queue, the task, the size and the limit
	 */
	public void checkPayload(String queue, String id, String payload) {
		this.payloadLimit.check(queue, id, payload);
	}

	/**
	 * Set the largest payload accepted at enqueue.
	 * @param payloadLimit the limit
	 */
	public void setPayloadLimit(PayloadLimit payloadLimit) {
		this.payloadLimit = payloadLimit;
	}

	/**
	 * Set the observer told about enqueued tasks (metrics).
	 * @param observer the observer
	 */
	public void setQueueObserver(QueueObserver observer) {
		this.observer = observer;
	}

	QueueObserver observer() {
		return this.observer;
	}

	// The workers' claim protocol.

	/**
	 * Claim up to {@code max} due tasks for the visibility timeout of {@code settings};
	 * expired claims come back first, or go to the dead letters when they used up
	 * {@link QueueSettings#maxAttempts()}.
	 */
	Claimed claim(String queue, int max, String claimer, QueueSettings settings) {
		return claim(queue, max, claimer, settings, List.of(), List.of());
	}

	/**
	 * Claim up to {@code max} due tasks for a claimer that still runs some: none of the
	 * ids it runs is given to it again, and its claims that it still holds are not
	 * recovered by this call (it renews them).
	 * @param held the claimer's runs that still hold their claims
	 * @param runningIds the ids of the claimer's runs, held or not
	 */
	Claimed claim(String queue, int max, String claimer, QueueSettings settings, Collection<ClaimedTask> held,
			Collection<String> runningIds) {
		return claim(queue, max, claimer, settings, held, runningIds,
				claimer + ":" + this.claimCalls.incrementAndGet());
	}

	/**
	 * Claim as above, as the claim call {@code call}: a call made again with the same id
	 * (as the client does when an answer was lost in a reconnect) answers with the tasks
	 * the first one claimed, when they are still claimed by it.
	 */
	Claimed claim(String queue, int max, String claimer, QueueSettings settings, Collection<ClaimedTask> held,
			Collection<String> runningIds, String call) {
		List<String> args = new ArrayList<>(8 + 2 * held.size() + runningIds.size());
		Collections.addAll(args, Integer.toString(max), Long.toString(settings.visibilityTimeout().toMillis()), claimer,
				Integer.toString(settings.maxAttempts()), Integer.toString(settings.deadLetterMaxSize()),
				Long.toString(settings.deadLetterMaxAge().toMillis()),
				Long.toString(settings.pollInterval().toMillis() + IDLE_MARGIN_MILLIS), Integer.toString(held.size()));
		for (ClaimedTask task : held) {
			args.add(task.handle());
			args.add(task.token());
		}
		args.addAll(runningIds);
		List<String> keys = new ArrayList<>(this.keys.all(queue));
		keys.add(this.keys.claimCall(queue, call));
		List<?> flat = runList(CLAIM, keys, args);
		List<ClaimedTask> tasks = new ArrayList<>();
		List<String> buried = new ArrayList<>();
		long nextDueMillis = -1;
		if (flat != null && flat.size() >= 2) {
			nextDueMillis = ((Number) flat.get(0)).longValue();
			int dead = ((Number) flat.get(1)).intValue();
			for (int i = 2; i < 2 + dead; i++) {
				buried.add((String) flat.get(i));
			}
			for (int i = 2 + dead; i + 6 < flat.size(); i += 7) {
				tasks.add(new ClaimedTask(queue, (String) flat.get(i), (String) flat.get(i + 1),
						(String) flat.get(i + 2), (String) flat.get(i + 3), ((Number) flat.get(i + 4)).intValue(),
						(String) flat.get(i + 5), (String) flat.get(i + 6)));
			}
		}
		return new Claimed(tasks, nextDueMillis, buried);
	}

	/**
	 * Settle claimed tasks of one queue (see settle.lua for the actions).
	 * @return per task whether its claim still matched
	 */
	boolean[] settle(String queue, String action, String argument, int maxDead, Duration maxDeadAge,
			List<ClaimedTask> tasks) {
		List<String> args = new ArrayList<>(List.of(action, argument, Integer.toString(maxDead),
				Long.toString(maxDeadAge.toMillis()), this.keys.channel(), queue));
		for (ClaimedTask task : tasks) {
			args.add(task.handle());
			args.add(task.token());
		}
		List<?> result = runList(SETTLE, this.keys.all(queue), args);
		boolean[] settled = new boolean[tasks.size()];
		for (int i = 0; result != null && i < settled.length && i < result.size(); i++) {
			settled[i] = ((Number) result.get(i)).longValue() == 1;
		}
		return settled;
	}

	/**
	 * Write a number for Redis, whatever the default locale: an integral value without a
	 * fraction, digits always ASCII.
	 */
	static String number(double value) {
		if (value == Math.rint(value) && Math.abs(value) < 9e18) {
			return Long.toString((long) value);
		}
		return Double.toString(value);
	}

	String notificationChannel() {
		return this.keys.channel();
	}

	/**
	 * Return the JSON mapper that writes and reads the payloads.
	 * @return the mapper
	 */
	public JsonMapper json() {
		return this.json;
	}

	/**
	 * What a claim returned: the tasks, ms until the next waiting task is due (-1: none
	 * waits), and the ids of tasks that went to the dead letters because their workers
	 * never reported back.
	 */
	record Claimed(List<ClaimedTask> tasks, long nextDueMillis, List<String> deadLettered) {
	}

	/**
	 * A task claimed by a worker; {@code callerContext} is the enqueuing code's logging
	 * context as JSON ({@code ""} when it had none), {@code version} the version of the
	 * method its payload was written for ({@code ""} when none was recorded).
	 */
	record ClaimedTask(String queue, String id, String handle, String payload, String token, int attempt,
			String callerContext, String version) {
	}

}
