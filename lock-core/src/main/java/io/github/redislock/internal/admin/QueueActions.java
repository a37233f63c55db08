package io.github.redislock.internal.admin;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redislock.admin.AdminRequestException;
import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.support.Printable;
import org.jspecify.annotations.Nullable;

/**
 * The write actions on a queue by name, as the actuator endpoint and the dashboard take
 * them.
 *
 * @since 0.1.0
 */
public final class QueueActions {

	/** The actions, by name. */
	public static final java.util.List<String> ACTIONS = java.util.List.of("pause", "resume", "purge", "requeue",
			"cancel", "delete");

	private QueueActions() {
	}

	/**
	 * Carry out one action on a queue.
	 * @param admin the operations
	 * @param queue the queue
	 * @param action one of {@link #ACTIONS}
	 * @param id the task, for {@code requeue}, {@code cancel} and {@code delete}
	 * @return the queue, the action, its outcome ({@code purged}, {@code requeued},
	 * {@code cancelled}, {@code deleted}) and a {@code message} for people
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
				yield "Paused " + shown(queue) + " on every instance";
			}
			case "resume" -> {
				admin.resume(queue);
				yield "Resumed " + shown(queue);
			}
			case "purge" -> {
				long purged = admin.purge(queue);
				result.put("purged", purged);
				yield "Purged " + purged + " dead letter(s) of " + shown(queue);
			}
			case "requeue" -> {
				boolean requeued = admin.requeue(queue, id);
				result.put("requeued", requeued);
				yield requeued ? "Requeued " + shown(id) + ": due now"
						: "No dead letter " + shown(id) + " in " + shown(queue);
			}
			case "cancel" -> {
				boolean cancelled = admin.cancel(queue, id);
				result.put("cancelled", cancelled);
				yield cancelled ? "Cancelled " + shown(id) : "No waiting task " + shown(id) + " in " + shown(queue);
			}
			case "delete" -> {
				boolean deleted = admin.deleteDeadLetter(queue, id);
				result.put("deleted", deleted);
				yield deleted ? "Deleted dead letter " + shown(id)
						: "No dead letter " + shown(id) + " in " + shown(queue);
			}
			default -> throw new AdminRequestException("Unknown action '" + shown(action) + "': use one of " + ACTIONS);
		};
		result.put("message", message);
		return result;
	}

	/** A name or id as a message shows it: control characters escaped, long ones cut. */
	private static String shown(@Nullable String text) {
		if (text == null) {
			return "null";
		}
		return Printable.of((text.length() > 80) ? text.substring(0, 80) + "..." : text);
	}

}
