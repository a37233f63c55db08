package io.github.redislock.internal.lock;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.awaitility.Awaitility.await;

/**
 * {@link AsyncTimeouts}' scheduler replaced for one test, from an idle tick; closing puts
 * the original back and restarts a tick for whatever timeouts are left (it drains their
 * slots), then shuts the replacement down.
 */
final class TimerSchedulerSwap implements AutoCloseable {

	private final Field schedulerField;

	private final Object original;

	private final ThreadPoolTaskScheduler replacement;

	private TimerSchedulerSwap(Field schedulerField, Object original, ThreadPoolTaskScheduler replacement) {
		this.schedulerField = schedulerField;
		this.original = original;
		this.replacement = replacement;
	}

	/**
	 * Wait until no tick runs (other tests of this JVM may have kept timeouts), then
	 * replace the scheduler.
	 */
	static TimerSchedulerSwap to(ThreadPoolTaskScheduler replacement) throws Exception {
		await().atMost(Duration.ofSeconds(90)).until(() -> !AsyncTimeouts.isTicking());
		Field schedulerField = field("scheduler");
		Object original = schedulerField.get(null);
		schedulerField.set(null, replacement);
		return new TimerSchedulerSwap(schedulerField, original, replacement);
	}

	/**
	 * Return the flag the tick keeps while it runs.
	 */
	static AtomicBoolean ticking() throws Exception {
		return (AtomicBoolean) field("ticking").get(null);
	}

	private static Field field(String name) throws Exception {
		Field field = AsyncTimeouts.class.getDeclaredField(name);
		field.setAccessible(true);
		return field;
	}

	@Override
	public void close() throws Exception {
		this.schedulerField.set(null, this.original);
		ticking().set(false);
		CompletableFuture<String> kick = new CompletableFuture<>();
		AsyncTimeouts.within(kick, Duration.ofSeconds(1), () -> new TimeoutException("kick"));
		kick.complete("cleanup");
		this.replacement.shutdown();
	}

}
