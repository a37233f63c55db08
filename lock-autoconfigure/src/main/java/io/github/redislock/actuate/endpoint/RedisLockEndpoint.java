package io.github.redislock.actuate.endpoint;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.admin.AdminRequestException;
import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockHolder;
import io.github.redislock.internal.admin.QueueActions;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * Actuator endpoint {@code redislock}.
 * <ul>
 * <li>{@code GET /actuator/redislock}: the locks this instance holds (name, held for,
 * lease left, fencing token) and each queue it handles (depths, lag, paused);</li>
 * <li>{@code GET /actuator/redislock/queues/{queue}?dead=20&upcoming=20}: one queue with
 * its oldest dead letters (id, attempts, last error, died at, payload) and its next
 * delayed tasks, errors and payloads cut to {@value RedisLockAdmin#PREVIEW_BYTES} bytes
 * with their full sizes, as many as fit in {@value RedisLockAdmin#ANSWER_BYTES} bytes
 * ({@code complete} says whether all asked for are in);</li>
 * <li>{@code GET /actuator/redislock/queues/{queue}/dead-letter?id=} and {@code GET
 * /actuator/redislock/queues/{queue}/task?id=}: one dead letter or waiting task whole
 * (404 when there is none);</li>
 * <li>{@code GET /actuator/redislock/locks/{name}}: who holds a lock, on any
 * instance;</li>
 * <li>{@code POST /actuator/redislock/queues/{queue}} with a JSON body {@code {"action":
 * "pause" | "resume" | "purge" | "requeue" | "cancel" | "delete", "id": ...}}
 * ({@code id}: the task, for {@code requeue}, {@code cancel} and {@code delete} — a dead
 * letter);</li>
 * <li>{@code DELETE /actuator/redislock/{name}}: force-unlock a lock whoever holds
 * it.</li>
 * </ul>
 * Unknown queues, sections and actions, blank ids and counts outside 1 to
 * {@value RedisLockAdmin#MAX_PAGE} are answered with 400 and a body {@code {"error":
 * ...}} saying what is wrong (an unknown action: which ones there are), and change
 * nothing.
 * <p>
 * On Spring Boot's endpoint access model the endpoint is read-only by default: the write
 * and delete operations are offered only once an operator opens it with
 * {@code management.endpoint.redislock.access=unrestricted} (or
 * {@code management.endpoints.access.default}).
 *
 * @since 0.1.0
 */
@Endpoint(id = "redislock", defaultAccess = Access.READ_ONLY)
public class RedisLockEndpoint {

	private static final int DEFAULT_PAGE = 20;

	private final RedisLockAdmin admin;

	/**
	 * Create the endpoint.
	 * @param admin what it shows and does
	 */
	public RedisLockEndpoint(RedisLockAdmin admin) {
		this.admin = admin;
	}

	@ReadOperation
	public RedisLockDescriptor describe() {
		Map<String, QueueDescriptor> queues = new LinkedHashMap<>();
		for (RedisLockAdmin.QueueSummary queue : this.admin.queues()) {
			queues.put(queue.name(), new QueueDescriptor(queue.ready(), queue.delayed(), queue.inflight(), queue.dead(),
					queue.lagMillis(), queue.paused()));
		}
		return new RedisLockDescriptor(this.admin.heldLocks(), queues);
	}

	/**
	 * Show one queue ({@code section = queues}) or who holds one lock
	 * ({@code section = locks}).
	 * @param section {@code queues} or {@code locks}
	 * @param name the queue or the lock
	 * @param dead how many dead letters to show (default 20)
	 * @param upcoming how many delayed tasks to show (default 20)
	 * @return the queue, or the lock's holder
	 */
	@ReadOperation
	public @Nullable Object show(@Selector String section, @Selector String name, @Nullable Integer dead,
			@Nullable Integer upcoming) {
		return answer(() -> switch (section) {
			case "queues" -> this.admin.queue(name, (dead != null) ? dead : DEFAULT_PAGE,
					(upcoming != null) ? upcoming : DEFAULT_PAGE);
			case "locks" -> new HolderDescriptor(name, this.admin.holder(name).orElse(null));
			default -> throw new AdminRequestException(
					"Unknown section '" + section + "': use /queues/{queue} or /locks/{name}");
		});
	}

	/**
	 * Show one dead letter ({@code kind = dead-letter}) or one waiting task
	 * ({@code kind = task}) whole.
	 * @param section {@code queues}
	 * @param name the queue
	 * @param kind {@code dead-letter} or {@code task}
	 * @param id the task id
	 * @return the task, or {@code null} (404) when there is none
	 */
	@ReadOperation
	public @Nullable Object task(@Selector String section, @Selector String name, @Selector String kind, String id) {
		return answer(() -> {
			if (!"queues".equals(section)) {
				throw new AdminRequestException(
						"Unknown section '" + section + "': use /queues/{queue}/dead-letter or /queues/{queue}/task");
			}
			return switch (kind) {
				case "dead-letter" -> this.admin.deadLetter(name, id).orElse(null);
				case "task" -> this.admin.waitingTask(name, id).orElse(null);
				default -> throw new AdminRequestException(
						"Unknown kind '" + kind + "': use /queues/{queue}/dead-letter?id= or /queues/{queue}/task?id=");
			};
		});
	}

	/**
	 * Act on a queue: pause, resume, purge its dead letters, requeue a dead task, cancel
	 * a waiting task, delete a dead task. Offered only with unrestricted access to this
	 * endpoint.
	 * @param section {@code queues}
	 * @param name the queue
	 * @param action {@code pause}, {@code resume}, {@code purge}, {@code requeue},
	 * {@code cancel} or {@code delete}
	 * @param id the task, for {@code requeue}, {@code cancel} and {@code delete}
	 * @return what was done
	 */
	@WriteOperation
	public @Nullable Object act(@Selector String section, @Selector String name, String action, @Nullable String id) {
		return answer(() -> {
			if (!"queues".equals(section)) {
				throw new AdminRequestException("Only queues can be acted on: POST /queues/{queue}");
			}
			return QueueActions.run(this.admin, name, action, id);
		});
	}

	/**
	 * Delete the named exclusive lock, whoever holds it; its holder finds it lost.
	 * Offered only with unrestricted access to this endpoint.
	 * @param name the full lock name
	 * @return the name and whether there was a lock to delete
	 */
	@DeleteOperation
	public @Nullable Object forceUnlock(@Selector String name) {
		return answer(() -> Map.of("name", name, "deleted", this.admin.forceUnlock(name)));
	}

	/**
	 * Return what the operation answers, or a 400 whose body says what was wrong (Boot's
	 * error page would leave the message out).
	 */
	private static @Nullable Object answer(java.util.function.Supplier<?> operation) {
		try {
			return operation.get();
		}
		catch (AdminRequestException ex) {
			return new WebEndpointResponse<>(Map.of("error", String.valueOf(ex.getMessage())),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

	/**
	 * What the endpoint shows.
	 *
	 * @param locks the locks held by this instance
	 * @param queues the depths of the queues this instance handles
	 */
	public record RedisLockDescriptor(List<HeldLock> locks, Map<String, QueueDescriptor> queues) {
	}

	/**
	 * One queue's depths.
	 *
	 * @param ready tasks due now
	 * @param delayed tasks due later
	 * @param inflight tasks being run by a worker
	 * @param dead tasks in the dead letters
	 * @param lagMillis how long the oldest due task has waited
	 * @param paused whether the queue is paused
	 */
	public record QueueDescriptor(long ready, long delayed, long inflight, long dead, long lagMillis, boolean paused) {
	}

	/**
	 * Who holds a lock.
	 *
	 * @param name the lock
	 * @param holder its holder, {@code null} when it is free
	 */
	public record HolderDescriptor(String name, @Nullable LockHolder holder) {
	}

}
