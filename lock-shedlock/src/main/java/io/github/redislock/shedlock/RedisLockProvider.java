package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.Optional;

import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockHandle;
import io.github.redislock.core.RedisLockTemplate;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import org.springframework.util.Assert;

/**
 * ShedLock's {@link ExtensibleLockProvider} on a {@link RedisLockTemplate}: jobs
 * annotated with ShedLock's {@code @SchedulerLock} (or run by its
 * {@code LockingTaskExecutor}) take the engine's locks, unchanged. <pre class="code">
 * &#64;Bean
 * LockProvider lockProvider(RedisLockTemplate locks) {
 *     return new RedisLockProvider(locks);
 * }
 * </pre> (auto-configured when this module and ShedLock are on the class path and the
 * application declares no {@code LockProvider} of its own).
 * <p>
 * Each {@code lock} is one attempt, without waiting, at a hold that no thread owns
 * ({@link RedisLockTemplate#tryAcquire(String, Duration, Duration, Duration)}) of the
 * lock with ShedLock's name (under the template's key prefix: the same lock as
 * {@code @DistributedLock} of that name):
 * <ul>
 * <li>{@code lockAtMostFor} is its fixed lease: Redis expires the lock then, whatever the
 * job does, and never renews it;</li>
 * <li>{@code lockAtLeastFor} is its hold-at-least, timed by the Redis server: the unlock
 * leaves the lock taken until that long after it was acquired, counted by Redis from the
 * fencing token, so instances whose clocks differ cannot run a tick twice;</li>
 * <li>{@code extend(lockAtMostFor, lockAtLeastFor)} is one owner-checked script call
 * ({@link LockHandle#extend(Duration, Duration)}): a new lease and a new hold-at-least,
 * both counted from the extension, or an empty answer when the lock is gone;</li>
 * <li>{@code unlock} is owner-checked: after the lease ran out it leaves the next
 * holder's lock alone. It does not throw for a lock that was lost; the engine reports the
 * loss once, when it finds it (a WARN line, a
 * {@link io.github.redislock.core.LockLostEvent}, the {@code redislock.lost}
 * counter).</li>
 * </ul>
 * From {@code lock} until {@code unlock}, on the thread that called {@code lock} (the
 * job's, for {@code @SchedulerLock} and the {@code LockingTaskExecutor}), the hold is the
 * innermost lock that {@link LockContext} describes: the job reads its fencing token with
 * {@link LockContext#fencingToken()}. ShedLock's {@code LockAssert} and
 * {@code LockExtender} work as with any provider.
 *
 * @since 0.1.0
 */
public class RedisLockProvider implements ExtensibleLockProvider {

	private final RedisLockTemplate template;

	/**
	 * Create a provider whose locks are the template's.
	 * @param template the lock template (the starter's, a RedLock template, or one of the
	 * application's own whose handles can be extended)
	 */
	public RedisLockProvider(RedisLockTemplate template) {
		Assert.notNull(template, "'template' must not be null");
		this.template = template;
	}

	/**
	 * Try once to take the lock that {@code configuration} names, without waiting.
	 * @param configuration the lock's name, {@code lockAtMostFor} (its lease, at least a
	 * millisecond) and {@code lockAtLeastFor}
	 * @return the lock, or empty when another holder has it (or keeps it for its
	 * {@code lockAtLeastFor})
	 * @throws io.github.redislock.core.LockAcquisitionException when Redis cannot be
	 * reached
	 */
	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		Assert.isTrue(configuration.getLockAtMostFor().toMillis() > 0, () -> "lockAtMostFor of lock '"
				+ configuration.getName() + "' must be at least 1ms, was " + configuration.getLockAtMostFor());
		Optional<LockHandle> handle = this.template.tryAcquire(configuration.getName(), Duration.ZERO,
				configuration.getLockAtMostFor(), configuration.getLockAtLeastFor());
		return handle.map((held) -> new RedisSimpleLock(configuration, JobHold.enter(held)));
	}

	@Override
	public String toString() {
		return "RedisLockProvider on " + this.template;
	}

}
