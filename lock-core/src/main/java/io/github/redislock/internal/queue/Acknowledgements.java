package io.github.redislock.internal.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.jspecify.annotations.Nullable;

/**
 * The acknowledgements of one queue's finished tasks, committed in groups: a worker that
 * finishes while another worker's acknowledgement is on its way to Redis queues its own,
 * and the next one to go sends every acknowledgement queued by then in one script call. A
 * lone acknowledgement still goes at once, in one round trip; under load, one call
 * settles many tasks. Each worker still waits for its own answer (whether its claim was
 * still valid), as it would for a call of its own.
 */
final class Acknowledgements {

	/** Most tasks settled by one script call. */
	static final int MAX_BATCH = 256;

	private final RedisTaskQueue queue;

	private final String queueName;

	private final int maxDead;

	private final Duration maxDeadAge;

	private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();

	private final ReentrantLock sending = new ReentrantLock();

	private final AtomicLong calls = new AtomicLong();

	Acknowledgements(RedisTaskQueue queue, String queueName, int maxDead, Duration maxDeadAge) {
		this.queue = queue;
		this.queueName = queueName;
		this.maxDead = maxDead;
		this.maxDeadAge = maxDeadAge;
	}

	/**
	 * Acknowledge a finished task, with whatever other acknowledgements are queued.
	 * @return whether the task's claim still matched (it is done); {@code false} when
	 * another worker claimed it meanwhile
	 * @throws RuntimeException what the script call failed with
	 */
	boolean acknowledge(RedisTaskQueue.ClaimedTask task) {
		Pending mine = new Pending(task);
		this.pending.add(mine);
		this.sending.lock();
		try {
			while (!mine.done) {
				send();
			}
		}
		finally {
			this.sending.unlock();
		}
		RuntimeException failure = mine.failure;
		if (failure != null) {
			throw failure;
		}
		return mine.settled;
	}

	/**
	 * Send up to {@link #MAX_BATCH} queued acknowledgements, oldest first.
	 */
	@GuardedBy("sending")
	private void send() {
		List<Pending> batch = new ArrayList<>();
		Pending next;
		while (batch.size() < MAX_BATCH && (next = this.pending.poll()) != null) {
			batch.add(next);
		}
		if (batch.isEmpty()) {
			return;
		}
		List<RedisTaskQueue.ClaimedTask> tasks = new ArrayList<>(batch.size());
		batch.forEach((pending) -> tasks.add(pending.task));
		this.calls.incrementAndGet();
		try {
			boolean[] settled = this.queue.settle(this.queueName, "ack", "", this.maxDead, this.maxDeadAge, tasks);
			for (int i = 0; i < batch.size(); i++) {
				batch.get(i).settled = settled[i];
			}
		}
		catch (RuntimeException ex) {
			batch.forEach((pending) -> pending.failure = ex);
		}
		finally {
			batch.forEach((pending) -> pending.done = true);
		}
	}

	/** Held while an acknowledgement is on its way (for tests). */
	ReentrantLock sending() {
		return this.sending;
	}

	/** Acknowledgements waiting to be sent. */
	int queued() {
		return this.pending.size();
	}

	/** Script calls made so far. */
	long calls() {
		return this.calls.get();
	}

	/**
	 * One queued acknowledgement; written and read under {@link #sending}.
	 */
	/**
	 * One acknowledgement: its outcome is written by the thread that sends it, holding
	 * {@link #sending}, and read by its own thread once that saw {@code done} holding it.
	 */
	private static final class Pending {

		private final RedisTaskQueue.ClaimedTask task;

		private boolean settled;

		private @Nullable RuntimeException failure;

		private boolean done;

		Pending(RedisTaskQueue.ClaimedTask task) {
			this.task = task;
		}

	}

}
