package io.github.redislock.internal.lock;

import io.github.redislock.core.SemaphorePermit;

/**
 * A semaphore permit: an asynchronous hold of a {@link SemaphoreLock}, given back by
 * {@link #close()} as by {@link #release()}.
 */
final class AsyncPermit extends AsyncHold implements SemaphorePermit {

	AsyncPermit(ThreadOwnedLock lock, LockHold hold) {
		super(lock, hold);
	}

}
