package io.github.redislock.faults;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.redislock.core.LockContext;
import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A lock holder in a JVM of its own (run by {@link io.github.redislock.test.ChildJvm}).
 * Arguments: Redis port, lock name, lease in ms, {@code fixed} or {@code watchdog}.
 * Commands on stdin, answers on stdout:
 * <ul>
 * <li>{@code ACQUIRE} → {@code HELD token sentMicros returnedMicros};</li>
 * <li>{@code WRITE value} → {@code WRITE accepted|refused held=true|false} (a write to
 * the fenced resource named after the lock, with this holder's token, whether or not it
 * still believes it holds the lock);</li>
 * <li>{@code RELEASE} → {@code RELEASED} or {@code RELEASE-LOST message}.</li>
 * </ul>
 * A lost lock is reported as {@code LOST name token} when the holder finds out.
 */
public final class LockHolderProcess {

	private LockHolderProcess() {
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		String name = args[1];
		Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
		boolean fixed = args[3].equals("fixed");
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(factory,
				LockSettings.DEFAULTS.withLeaseTime(fixed ? Duration.ofSeconds(30) : lease));
		template.setLockLostListener((event) -> say("LOST " + event.getLockName() + " " + event.getFencingToken()));
		FencedResource resource = new FencedResource(new StringRedisTemplate(factory), name);
		RedisLock lock = template.getLock(name);
		say("READY");
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String command;
		while ((command = commands.readLine()) != null) {
			if (command.equals("ACQUIRE")) {
				long sent = LockHistory.nowMicros();
				if (!lock.tryLock(Duration.ofSeconds(60), fixed ? lease : null)) {
					say("NOT-HELD");
					continue;
				}
				say("HELD " + lock.fencingToken() + " " + sent + " " + LockHistory.nowMicros());
			}
			else if (command.startsWith("WRITE ")) {
				boolean held = LockContext.isHeld();
				boolean accepted = resource.write("child", LockContext.fencingToken(), command.substring(6));
				say("WRITE " + (accepted ? "accepted" : "refused") + " held=" + held);
			}
			else if (command.equals("RELEASE")) {
				try {
					lock.unlock();
					say("RELEASED");
				}
				catch (RuntimeException ex) {
					say("RELEASE-LOST " + ex.getMessage());
				}
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
