package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link DefaultReactiveRedisLockTemplate} call cancelled at any moment (while it
 * waits, as the hold comes, while the action runs) leaves nothing taken: a hold that
 * Reactor discards because the subscriber left at the moment it came goes back, instead
 * of being renewed by the watchdog for nobody.
 */
@ExtendWith(RedisExtension.class)
class ReactiveCancelTests {

	private final LockTemplates templates;

	ReactiveCancelTests(RedisServer redis) {
		this.templates = new LockTemplates(redis);
	}

	@AfterEach
	void close() throws Exception {
		this.templates.close();
	}

	@Test
	void callsCancelledAtRandomMomentsLeaveNoHoldBehind() {
		DefaultRedisLockTemplate template = this.templates.create();
		DefaultReactiveRedisLockTemplate reactive = new DefaultReactiveRedisLockTemplate(template);
		List<String> names = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			String name = "reactive-cancel-" + UUID.randomUUID();
			names.add(name);
			Disposable call = reactive
				.execute(name, Duration.ofSeconds(5), null, (token) -> Mono.delay(Duration.ofSeconds(30)))
				.subscribe((value) -> {
				}, (failure) -> {
				});
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 2_000_000));
			call.dispose();
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.getActiveHoldCount()).as("holds left behind").isZero());
		RedisLockTemplateProbe.assertAllFree(this.templates.create(), names);
	}

	/**
	 * Checks from another instance that no lock is taken.
	 */
	static final class RedisLockTemplateProbe {

		static void assertAllFree(DefaultRedisLockTemplate other, List<String> names) {
			assertThat(names.stream().filter((name) -> other.getLock(name).isLocked()).toList()).as("locks still taken")
				.isEmpty();
		}

	}

}
