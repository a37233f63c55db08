package io.github.redislock.shedlock;

import java.util.ArrayDeque;
import java.util.Iterator;

import io.github.redislock.core.LockHandle;
import io.github.redislock.support.CurrentLock;
import io.github.redislock.support.CurrentLocks;

/**
 * A ShedLock hold as the thread that took it sees it: its innermost lock for
 * {@link io.github.redislock.core.LockContext} from {@code lock} until {@code unlock}.
 * <p>
 * ShedLock unlocks on the thread that locked (its {@code LockingTaskExecutor} does), and
 * then the hold leaves that thread's context at once. A caller that unlocks on another
 * thread cannot reach the first thread's context: the hold leaves it at that thread's
 * next {@code lock}, and reads as not held until then.
 */
final class JobHold implements CurrentLock {

	/** The holds the current thread entered and has not left yet, innermost last. */
	private static final ThreadLocal<ArrayDeque<JobHold>> ENTERED = ThreadLocal.withInitial(ArrayDeque::new);

	private final LockHandle handle;

	private final Thread thread;

	private volatile boolean ended;

	private JobHold(LockHandle handle, Thread thread) {
		this.handle = handle;
		this.thread = thread;
	}

	/**
	 * Make {@code handle} the current thread's innermost lock, after taking out the holds
	 * of this thread that were unlocked elsewhere.
	 */
	static JobHold enter(LockHandle handle) {
		ArrayDeque<JobHold> entered = ENTERED.get();
		for (Iterator<JobHold> holds = entered.iterator(); holds.hasNext();) {
			JobHold hold = holds.next();
			if (hold.ended) {
				CurrentLocks.exited(hold);
				holds.remove();
			}
		}
		JobHold hold = new JobHold(handle, Thread.currentThread());
		CurrentLocks.entered(hold);
		entered.addLast(hold);
		return hold;
	}

	LockHandle handle() {
		return this.handle;
	}

	/**
	 * The hold ends: it leaves its thread's context now when this is that thread,
	 * otherwise at that thread's next {@link #enter}.
	 */
	void exit() {
		this.ended = true;
		if (Thread.currentThread() == this.thread) {
			CurrentLocks.exited(this);
			ArrayDeque<JobHold> entered = ENTERED.get();
			entered.remove(this);
			if (entered.isEmpty()) {
				ENTERED.remove();
			}
		}
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
		return !this.ended && this.handle.isHeld();
	}

	@Override
	public String lostReason() {
		return this.ended ? "ShedLock unlocked it" : "its handle reports it no longer held";
	}

}
