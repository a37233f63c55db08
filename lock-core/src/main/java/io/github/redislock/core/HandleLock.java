package io.github.redislock.core;

import io.github.redislock.support.CurrentLock;

/**
 * A {@link LockHandle} of any template as {@link LockContext} and
 * {@link ReactiveLockContext} read it.
 */
record HandleLock(LockHandle handle) implements CurrentLock {

	static CurrentLock of(LockHandle handle) {
		return (handle instanceof CurrentLock own) ? own : new HandleLock(handle);
	}

	@Override
	public String lockName() {
		return this.handle.getName();
	}

	@Override
	public long fencingToken() {
		return this.handle.fencingToken();
	}

	@Override
	public boolean isHeld() {
		return this.handle.isHeld();
	}

	@Override
	public String lostReason() {
		return "its handle reports it no longer held";
	}

}
