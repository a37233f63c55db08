package io.github.redislock.test.support;

import java.time.Duration;
import java.util.Optional;

import io.github.redislock.core.LockHolder;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import org.assertj.core.api.AbstractAssert;

import org.springframework.util.Assert;

/**
 * AssertJ assertions on a lock, read from Redis at each call (needs {@code assertj-core},
 * which {@code spring-boot-starter-test} brings): <pre class="code">
 * assertThatLock(template, "orders:42").isHeld();
 * </pre>
 *
 * @since 0.1.0
 */
public class RedisLockAssert extends AbstractAssert<RedisLockAssert, RedisLock> {

	/**
	 * Create assertions on a lock.
	 * @param lock the lock
	 */
	protected RedisLockAssert(RedisLock lock) {
		super(lock, RedisLockAssert.class);
	}

	/**
	 * Start assertions on a lock.
	 * @param lock the lock
	 * @return the assertions
	 */
	public static RedisLockAssert assertThat(RedisLock lock) {
		return new RedisLockAssert(lock);
	}

	/**
	 * Start assertions on the exclusive lock of that full name ({@code name:key}, as an
	 * annotated method takes it).
	 * @param template the application's template
	 * @param name the lock's full name
	 * @return the assertions
	 */
	public static RedisLockAssert assertThatLock(RedisLockTemplate template, String name) {
		Assert.notNull(template, "'template' must not be null");
		Assert.hasText(name, "'name' must not be empty");
		return new RedisLockAssert(template.getLock(name));
	}

	/**
	 * Verify that someone, on any instance, holds the lock.
	 * @return this
	 */
	public RedisLockAssert isHeld() {
		isNotNull();
		if (!this.actual.isLocked()) {
			failWithMessage("Expected lock '%s' to be held, but it is free", this.actual.getName());
		}
		return this;
	}

	/**
	 * Verify that nobody holds the lock.
	 * @return this
	 */
	public RedisLockAssert isFree() {
		isNotNull();
		Optional<LockHolder> holder = this.actual.holder();
		if (holder.isPresent() || this.actual.isLocked()) {
			failWithMessage("Expected lock '%s' to be free, but it is held by %s (%s left on its lease)",
					this.actual.getName(), holder.map(RedisLockAssert::describe).orElse("an unknown holder"),
					this.actual.remainingLease());
		}
		return this;
	}

	/**
	 * Verify that the calling thread holds the lock.
	 * @return this
	 */
	public RedisLockAssert isHeldByCurrentThread() {
		isNotNull();
		if (!this.actual.isHeldByCurrentThread()) {
			failWithMessage("Expected lock '%s' to be held by the current thread (%s), but it is %s",
					this.actual.getName(), Thread.currentThread().getName(),
					this.actual.holder()
						.map((holder) -> "held by " + describe(holder))
						.orElse(this.actual.isLocked() ? "held by another holder" : "free"));
		}
		return this;
	}

	/**
	 * Verify that the lock's lease ends within the given time, as a lock taken with a
	 * fixed lease or held past its {@code holdAtLeast} does.
	 * @param lease the longest lease left
	 * @return this
	 */
	public RedisLockAssert hasLeaseLeftAtMost(Duration lease) {
		isHeld();
		Duration left = this.actual.remainingLease();
		if (left.compareTo(lease) > 0) {
			failWithMessage("Expected lock '%s' to have at most %s left on its lease, but it has %s",
					this.actual.getName(), lease, left);
		}
		return this;
	}

	/**
	 * Verify that the calling thread holds the lock with a fencing token greater than the
	 * given one (a token is only readable by its holder).
	 * @param token the token to exceed, such as one an earlier holder saw
	 * @return this
	 */
	public RedisLockAssert hasFencingTokenGreaterThan(long token) {
		isHeldByCurrentThread();
		long actualToken = this.actual.fencingToken();
		if (actualToken <= token) {
			failWithMessage("Expected lock '%s' to have a fencing token greater than %s, but it is %s",
					this.actual.getName(), token, actualToken);
		}
		return this;
	}

	private static String describe(LockHolder holder) {
		return "instance " + holder.instanceId() + " (" + holder.application() + ", pid " + holder.pid() + " on "
				+ holder.host() + ")";
	}

}
