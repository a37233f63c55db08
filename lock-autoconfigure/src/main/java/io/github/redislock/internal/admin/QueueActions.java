package io.github.redislock.internal.admin;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redislock.admin.AdminRequestException;
import io.github.redislock.admin.RedisLockAdmin;
import org.jspecify.annotations.Nullable;

/**
 * The write actions on a queue by name, as the actuator endpoint and the dashboard take
 * them.
 *
 * @since 0.1.0
 */
public final class QueueActions {

	private QueueActions() {
	}

	/**
	 * Carry out one action on a queue.
	 * @param admin the operations
	 * @param queue the queue
	 * @param action {@code pause}, {@code resume}, {@code purge}, {@code requeue} or
	 * {@code cancel}
	 * @param id the task, for {@code requeue} and {@code cancel}
	 * @return the queue, the action, its outcome ({@code purged}, {@code requeued},
	 * {@code cancelled}) and a {@code message} for people
	 * @throws AdminRequestException for an unknown action or bad input, having changed
	 * nothing
	 */
	public static Map<String, Object> run(RedisLockAdmin admin, @Nullable String queue, @Nullable String action,
			@Nullable String id) {
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("queue", queue);
		result.put("action", action);
		String message = switch ((action != null) ? action : "") {
			case "pause" -> {
				admin.pause(queue);
				yield "Paused " + queue + " on every instance";
			}
			case "resume" -> {
				admin.resume(queue);
				yield "Resumed " + queue;
			}
			case "purge" -> {
				long purged = admin.purge(queue);
				result.put("purged", purged);
				yield "Purged " + purged + " dead letter(s) of " + queue;
			}
			case "requeue" -> {
				boolean requeued = admin.requeue(queue, id);
				result.put("requeued", requeued);
				yield requeued ? "Requeued " + id + ": due now" : "No dead letter " + id + " in " + queue;
			}
			case "cancel" -> {
				boolean cancelled = admin.cancel(queue, id);
				result.put("cancelled", cancelled);
				yield cancelled ? "Cancelled " + id : "No waiting task " + id + " in " + queue;
			}
			default -> throw new AdminRequestException(
					"Unknown action '" + action + "': use pause, resume, purge, requeue or cancel");
		};
		result.put("message", message);
		return result;
	}

}
