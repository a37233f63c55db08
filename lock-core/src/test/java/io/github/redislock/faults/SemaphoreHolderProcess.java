package io.github.redislock.faults;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A semaphore permit holder in a JVM of its own (run by
 * {@link io.github.redislock.test.ChildJvm}). Arguments: Redis port, semaphore name,
 * permits, lease in ms (watchdog-renewed). Commands on stdin: {@code ACQUIRE} →
 * {@code HELD token}; {@code HELD?} → {@code STILL true|false}. A lost permit is reported
 * as {@code LOST name token} when the holder finds out.
 */
public final class SemaphoreHolderProcess {

	private SemaphoreHolderProcess() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
		factory.afterPropertiesSet();
		factory.start();
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(factory,
				LockSettings.DEFAULTS.withLeaseTime(Duration.ofMillis(Long.parseLong(args[3]))));
		template.setLockLostListener((event) -> say("LOST " + event.getLockName() + " " + event.getFencingToken()));
		RedisSemaphore semaphore = template.getSemaphore(args[1], Integer.parseInt(args[2]));
		SemaphorePermit permit = null;
		say("READY");
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String command;
		while ((command = commands.readLine()) != null) {
			if (command.equals("ACQUIRE")) {
				permit = semaphore.tryAcquire(Duration.ofSeconds(30), null).orElse(null);
				say((permit != null) ? "HELD " + permit.fencingToken() : "NOT-HELD");
			}
			else if (command.equals("HELD?")) {
				say("STILL " + (permit != null && permit.isHeld()));
			}
		}
		template.destroy();
		factory.destroy();
	}

	private static synchronized void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
