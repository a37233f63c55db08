package io.github.redislock.test;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

/**
 * Dead letters written straight into a queue's keys (key layout in {@code QueueKeys}), as
 * an earlier release or a raised {@code max-payload-size} may leave them: large ones that
 * today's enqueue would refuse.
 */
public final class DeadLetterFixture {

	private DeadLetterFixture() {
	}

	/**
	 * Store dead letters {@code dead-00}, {@code dead-01}, ..., oldest first, each with a
	 * payload (a JSON string of {@code size + 2} bytes) and an error of {@code size}
	 * bytes.
	 * @param redis the server
	 * @param queue the queue
	 * @param count how many
	 * @param size the size of each payload and error
	 */
	public static void store(RedisServer redis, String queue, int count, int size) {
		JsonMapper json = new JsonMapper();
		String payload = json.writeValueAsString("p".repeat(size));
		String info = json.writeValueAsString(Map.of("attempts", 5, "error", "e".repeat(size)));
		long micros = System.currentTimeMillis() * 1000;
		for (int i = 0; i < count; i++) {
			String id = String.format(Locale.ROOT, "dead-%02d", i);
			redis.template().opsForZSet().add(key(queue, ""), id, micros + i);
			redis.template().opsForHash().put(key(queue, "-info"), id, info);
			redis.template().opsForHash().put(key(queue, "-payloads"), id, payload);
		}
	}

	/**
	 * Delete the dead letters of a queue.
	 * @param redis the server
	 * @param queue the queue
	 */
	public static void delete(RedisServer redis, String queue) {
		redis.template().delete(List.of(key(queue, ""), key(queue, "-info"), key(queue, "-payloads")));
	}

	private static String key(String queue, String suffix) {
		return "redislock:queue:{" + queue + "}:dead" + suffix;
	}

}
