package io.github.redislock.shedlock;

import java.util.Optional;

import io.github.redislock.core.LockLostException;
import io.github.redislock.support.Printable;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One ShedLock lock over a hold of the engine: {@link AbstractSimpleLock} makes it
 * invalid once unlocked or extended (an extension answers a new one over the same hold).
 */
final class RedisSimpleLock extends AbstractSimpleLock {

	private static final Log logger = LogFactory.getLog(RedisLockProvider.class);

	private final JobHold hold;

	RedisSimpleLock(LockConfiguration configuration, JobHold hold) {
		super(configuration);
		this.hold = hold;
	}

	/**
	 * Release the hold, owner-checked, keeping it for what remains of its
	 * {@code lockAtLeastFor}. A lost hold is not an error here: the engine reported it
	 * when it found it, and the unlock leaves whatever Redis holds now alone.
	 */
	@Override
	protected void doUnlock() {
		try {
			this.hold.handle().release();
		}
		catch (LockLostException ex) {
			logger.debug("Lock '" + Printable.of(this.lockConfiguration.getName())
					+ "' was unlocked after it had been lost (reported when it was found)");
		}
		finally {
			this.hold.exit();
		}
	}

	/**
	 * Extend the hold to a new lease of {@code lockAtMostFor} and a new hold-at-least of
	 * {@code lockAtLeastFor}, both from now, owner-checked. When the hold is gone, this
	 * lock is invalid (as after any extension) and nothing is left to unlock: the hold is
	 * given back here.
	 */
	@Override
	protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
		if (this.hold.handle().extend(newConfiguration.getLockAtMostFor(), newConfiguration.getLockAtLeastFor())) {
			return Optional.of(new RedisSimpleLock(newConfiguration, this.hold));
		}
		this.hold.handle().releaseAsync().exceptionally((failure) -> null);
		this.hold.exit();
		return Optional.empty();
	}

}
