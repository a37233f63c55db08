package io.github.redislock.faults;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A thread waiting for a lock in a JVM of its own (run by
 * {@link io.github.redislock.test.ChildJvm} with {@link #JVM_OPTIONS}), whose lock engine
 * logs through {@code java.util.logging}, so that what it logs at WARN and above can be
 * told to the test. Arguments: Redis port, lock name. Commands on stdin: {@code WAIT} → a
 * thread starts waiting for the lock, {@code CONNECTING} once the release channel's
 * pub/sub connection is being opened for it; {@code DESTROY} → the template is destroyed,
 * then, once the engine's connecting threads have ended,
 * {@code DESTROYED [line | line ...]} with the engine's WARN and ERROR lines so far.
 */
public final class LockWaiterProcess {

	/**
	 * The JVM options to run it with: commons-logging, which the engine logs through,
	 * writes to {@code java.util.logging} (the test class path has no SLF4J provider).
	 */
	public static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1",
			"-Dorg.apache.commons.logging.LogFactory=org.apache.commons.logging.impl.LogFactoryImpl",
			"-Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.Jdk14Logger");

	/** The engine's loggers' parent, held so that its handler stays. */
	private static final Logger ENGINE = Logger.getLogger("io.github.redislock");

	private static final List<String> warnings = new CopyOnWriteArrayList<>();

	private LockWaiterProcess() {
	}

	public static void main(String[] args) throws Exception {
		ENGINE.addHandler(new Handler() {

			@Override
			public void publish(LogRecord record) {
				if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
					warnings.add((record.getLevel() + " " + record.getLoggerName() + ": " + record.getMessage())
						.replaceAll("\\s+", " "));
				}
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		});
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
		factory.afterPropertiesSet();
		factory.start();
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(factory);
		RedisLock lock = template.getLock(args[1]);
		// The command connection is open before the test lets it wait.
		RedisLock warmUp = template.getLock(args[1] + "-warm-up");
		warmUp.tryLock(Duration.ZERO, null);
		warmUp.unlock();
		say("READY");
		Thread waiter = null;
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String command;
		while ((command = commands.readLine()) != null) {
			if (command.equals("WAIT")) {
				waiter = new Thread(() -> {
					try {
						lock.tryLock(Duration.ofSeconds(60), null);
					}
					catch (RuntimeException ex) {
						// Its template was destroyed under it.
					}
				}, "lock-waiter");
				waiter.setDaemon(true);
				waiter.start();
				awaitState(template, "connecting");
				say("CONNECTING");
			}
			else if (command.equals("DESTROY")) {
				template.destroy();
				if (waiter != null) {
					waiter.interrupt();
				}
				awaitConnectingThreadsEnded();
				say("DESTROYED " + String.join(" | ", warnings));
			}
		}
		factory.destroy();
	}

	private static void awaitState(DefaultRedisLockTemplate template, String state) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!template.releaseChannelState().equals(state)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Release channel still " + template.releaseChannelState());
			}
			Thread.sleep(1);
		}
	}

	/**
	 * Wait until the threads that open the release channel's connection (the template's
	 * asynchronous callback threads) have ended: what they log about a connect they gave
	 * up is logged by then.
	 */
	private static void awaitConnectingThreadsEnded() throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (Thread.getAllStackTraces()
			.keySet()
			.stream()
			.anyMatch((thread) -> thread.isAlive() && thread.getName().matches("redislock-async-\\d+"))) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The template's callback threads still run");
			}
			Thread.sleep(10);
		}
	}

	private static synchronized void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
