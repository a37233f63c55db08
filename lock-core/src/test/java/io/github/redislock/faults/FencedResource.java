package io.github.redislock.faults;

import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A resource guarded by fencing tokens, kept in Redis so that every process can write to
 * it: a write is accepted only with a token at least as new as the newest accepted.
 */
final class FencedResource {

	private static final RedisScript<Long> WRITE = RedisScript
		.of(new ClassPathResource("fenced-write.lua", FencedResource.class), Long.class);

	private final StringRedisTemplate redis;

	private final String name;

	FencedResource(StringRedisTemplate redis, String name) {
		this.redis = redis;
		this.name = name;
	}

	/**
	 * Write with a fencing token.
	 * @return whether the resource accepted it
	 */
	boolean write(String writer, long token, String value) {
		Long result = this.redis.execute(WRITE, List.of(key(), key() + ":log"), Long.toString(token), value, writer);
		return result != null && result == 1;
	}

	/**
	 * Record what the resource accepted, in order, into {@code history}.
	 */
	void copyLogTo(LockHistory history) {
		List<String> log = this.redis.opsForList().range(key() + ":log", 0, -1);
		for (String entry : (log != null) ? log : List.<String>of()) {
			String[] parts = entry.split(" ");
			history.accepted(this.name, parts[0], Long.parseLong(parts[1]));
		}
	}

	String value() {
		return (String) this.redis.opsForHash().get(key(), "value");
	}

	private String key() {
		return "fenced:{" + this.name + "}";
	}

}
