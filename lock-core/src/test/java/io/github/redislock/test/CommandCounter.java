package io.github.redislock.test;

import java.util.Properties;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Counts the commands a Redis server executed, from {@code INFO commandstats}, leaving
 * out the INFO calls themselves. Commands run inside scripts count too: count EVALSHA to
 * count script calls.
 */
public final class CommandCounter {

	private final StringRedisTemplate redis;

	public CommandCounter(RedisServer server) {
		this.redis = server.template();
	}

	/**
	 * Return how many times the server ran the given commands (all commands when none are
	 * given).
	 */
	public long calls(String... commands) {
		Properties stats = this.redis
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
		long total = 0;
		for (String key : stats.stringPropertyNames()) {
			String command = key.substring(key.indexOf('_') + 1);
			if (command.equals("info") || (commands.length > 0 && !java.util.List.of(commands).contains(command))) {
				continue;
			}
			String line = stats.getProperty(key);
			total += Long.parseLong(line.replaceAll("^calls=(\\d+),.*$", "$1"));
		}
		return total;
	}

}
