package io.github.redislock.admin;

import java.util.List;
import java.util.Optional;

import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockHolder;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import org.jspecify.annotations.Nullable;

/**
 * The operations behind the {@code redislock} actuator endpoint and the dashboard (a
 * bean): what this instance holds, the queues it handles (depths, pause state, dead
 * letters, upcoming tasks), holder lookups, and the write operations on queues. Every
 * input is checked before anything is read or changed — only queues that this instance
 * handles, task ids as {@link io.github.redislock.queue.TaskQueue#enqueue enqueue}
 * accepts them (any text that is not blank: long ids and ids with control characters
 * too), lock names of at most {@value #MAX_ID_LENGTH} characters without control
 * characters, counts from 1 to {@value #MAX_PAGE} — and refused with an
 * {@link AdminRequestException} naming the problem.
 * <p>
 * Reads are bounded in bytes, not only in count: the lists cut each payload and error to
 * {@value #PREVIEW_BYTES} bytes (in Redis, so large ones never leave the server whole)
 * with their full sizes, and stop once {@value #ANSWER_BYTES} bytes of ids and previews
 * are in ({@link QueueDetails#complete()} is then {@code false}). One task is read whole
 * with {@link #deadLetter} or {@link #waitingTask}.
 *
 * @since 0.1.0
 */
public interface RedisLockAdmin {

	/** Longest lock name accepted. */
	int MAX_ID_LENGTH = 1000;

	/** Most bytes of each payload and error in the lists. */
	int PREVIEW_BYTES = 4096;

	/** Most bytes of ids and previews in one answer of {@link #queue}. */
	int ANSWER_BYTES = 256 * 1024;

	/** Largest page of dead letters or upcoming tasks. */
	int MAX_PAGE = 1000;

	/**
	 * Return the locks this instance holds.
	 * @return the held locks
	 */
	List<HeldLock> heldLocks();

	/**
	 * Return every queue this instance handles, by name.
	 * @return the queues
	 */
	List<QueueSummary> queues();

	/**
	 * Return one queue with its oldest dead letters and its next delayed tasks, their
	 * payloads and errors cut to previews, as many as fit in {@value #ANSWER_BYTES}
	 * bytes.
	 * @param name the queue
	 * @param deadCount how many dead letters (1 to {@value #MAX_PAGE})
	 * @param upcomingCount how many delayed tasks (1 to {@value #MAX_PAGE})
	 * @return the queue
	 */
	QueueDetails queue(@Nullable String name, int deadCount, int upcomingCount);

	/**
	 * Return one dead letter whole: its full error and payload.
	 * @param name the queue
	 * @param id the task id
	 * @return the dead task, or empty when there is none of that id
	 */
	Optional<DeadTask> deadLetter(@Nullable String name, @Nullable String id);

	/**
	 * Return one waiting task (due or delayed) whole: its full payload.
	 * @param name the queue
	 * @param id the task id
	 * @return the oldest waiting task of that id, or empty when none waits
	 */
	Optional<TaskEntry> waitingTask(@Nullable String name, @Nullable String id);

	/**
	 * Return who holds a lock, on any instance.
	 * @param lockName the full lock name
	 * @return the holder, or empty when the lock is free
	 */
	Optional<LockHolder> holder(@Nullable String lockName);

	/**
	 * Delete a lock whoever holds it; its holder finds it lost.
	 * @param lockName the full lock name
	 * @return whether there was a lock to delete
	 */
	boolean forceUnlock(@Nullable String lockName);

	/**
	 * Pause a queue on every instance.
	 * @param name the queue
	 */
	void pause(@Nullable String name);

	/**
	 * Resume a queue on every instance.
	 * @param name the queue
	 */
	void resume(@Nullable String name);

	/**
	 * Put a dead task back, due now, attempts reset.
	 * @param name the queue
	 * @param id the task id
	 * @return whether there was such a dead task
	 */
	boolean requeue(@Nullable String name, @Nullable String id);

	/**
	 * Remove one dead task.
	 * @param name the queue
	 * @param id the task id
	 * @return whether there was such a dead task
	 */
	boolean deleteDeadLetter(@Nullable String name, @Nullable String id);

	/**
	 * Remove every dead task of a queue.
	 * @param name the queue
	 * @return how many were removed
	 */
	long purge(@Nullable String name);

	/**
	 * Remove a waiting task, due or delayed.
	 * @param name the queue
	 * @param id the task id
	 * @return whether there was such a task
	 */
	boolean cancel(@Nullable String name, @Nullable String id);

	/**
	 * One queue's depths and pause state.
	 *
	 * @param name the queue
	 * @param ready tasks due now
	 * @param delayed tasks due later
	 * @param inflight tasks being run
	 * @param dead tasks in the dead letters
	 * @param lagMillis how long the oldest due task has waited
	 * @param paused whether the queue is paused
	 */
	record QueueSummary(String name, long ready, long delayed, long inflight, long dead, long lagMillis,
			boolean paused) {
	}

	/**
	 * One queue in detail.
	 *
	 * @param summary its depths and pause state
	 * @param deadLetters its oldest dead letters, previews
	 * @param upcoming its next delayed tasks, previews
	 * @param complete whether the lists hold all that were asked for; {@code false} when
	 * they stopped at the answer's byte budget ({@value #ANSWER_BYTES} bytes)
	 */
	record QueueDetails(QueueSummary summary, List<DeadLetterPreview> deadLetters, List<TaskPreview> upcoming,
			boolean complete) {
	}

}
