package io.github.redislock.internal.admin;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.redislock.admin.AdminRequestException;
import io.github.redislock.admin.DeadLetterPreview;
import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.admin.TaskPreview;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockHolder;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.support.Printable;
import io.github.redislock.internal.queue.Page;
import io.github.redislock.internal.queue.QueueDepths;
import io.github.redislock.internal.queue.RedisTaskQueue;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import org.jspecify.annotations.Nullable;

import org.springframework.lang.Contract;

/**
 * {@link RedisLockAdmin} over this instance's lock templates and task queue.
 *
 * @since 0.1.0
 */
public final class DefaultRedisLockAdmin implements RedisLockAdmin {

	private final Supplier<List<HeldLock>> heldLocks;

	private final Supplier<Collection<String>> queueNames;

	private final @Nullable RedisTaskQueue queue;

	private final Supplier<RedisLockTemplate> template;

	/**
	 * @param heldLocks the locks this instance holds
	 * @param queueNames the queues this instance handles
	 * @param queue the task queue, if there is one
	 * @param template the template for holder lookups and force-unlock
	 */
	public DefaultRedisLockAdmin(Supplier<List<HeldLock>> heldLocks, Supplier<Collection<String>> queueNames,
			@Nullable RedisTaskQueue queue, Supplier<RedisLockTemplate> template) {
		this.heldLocks = heldLocks;
		this.queueNames = queueNames;
		this.queue = queue;
		this.template = template;
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.heldLocks.get();
	}

	@Override
	public List<QueueSummary> queues() {
		List<QueueSummary> result = new ArrayList<>();
		RedisTaskQueue queue = this.queue;
		if (queue == null) {
			return result;
		}
		for (String name : this.queueNames.get().stream().sorted().toList()) {
			result.add(summary(name, queue.depths(name)));
		}
		return result;
	}

	@Override
	public QueueDetails queue(@Nullable String name, int deadCount, int upcomingCount) {
		RedisTaskQueue queue = checkQueue(name);
		checkCount("dead", deadCount);
		checkCount("upcoming", upcomingCount);
		// Half of the budget for each list.
		Page<DeadLetterPreview> dead = queue.deadLetterPreviews(name, deadCount, PREVIEW_BYTES, ANSWER_BYTES / 2);
		Page<TaskPreview> upcoming = queue.upcomingPreviews(name, upcomingCount, PREVIEW_BYTES, ANSWER_BYTES / 2);
		return new QueueDetails(summary(name, queue.depths(name)), dead.entries(), upcoming.entries(),
				dead.complete() && upcoming.complete());
	}

	@Override
	public Optional<DeadTask> deadLetter(@Nullable String name, @Nullable String id) {
		RedisTaskQueue queue = checkQueue(name);
		checkTaskId(id);
		return queue.deadLetter(name, id);
	}

	@Override
	public Optional<TaskEntry> waitingTask(@Nullable String name, @Nullable String id) {
		RedisTaskQueue queue = checkQueue(name);
		checkTaskId(id);
		return queue.find(name, id);
	}

	@Override
	public boolean deleteDeadLetter(@Nullable String name, @Nullable String id) {
		RedisTaskQueue queue = checkQueue(name);
		checkTaskId(id);
		return queue.deleteDeadLetter(name, id);
	}

	@Override
	public Optional<LockHolder> holder(@Nullable String lockName) {
		checkId("lock name", lockName);
		return this.template.get().getLock(lockName).holder();
	}

	@Override
	public boolean forceUnlock(@Nullable String lockName) {
		checkId("lock name", lockName);
		return this.template.get().getLock(lockName).forceUnlock();
	}

	@Override
	public void pause(@Nullable String name) {
		checkQueue(name).pause(name);
	}

	@Override
	public void resume(@Nullable String name) {
		checkQueue(name).resume(name);
	}

	@Override
	public boolean requeue(@Nullable String name, @Nullable String id) {
		RedisTaskQueue queue = checkQueue(name);
		checkTaskId(id);
		return queue.requeue(name, id);
	}

	@Override
	public long purge(@Nullable String name) {
		return checkQueue(name).purge(name);
	}

	@Override
	public boolean cancel(@Nullable String name, @Nullable String id) {
		RedisTaskQueue queue = checkQueue(name);
		checkTaskId(id);
		return queue.cancel(name, id);
	}

	@Contract("null -> fail")
	private RedisTaskQueue checkQueue(@Nullable String name) {
		RedisTaskQueue queue = this.queue;
		if (queue == null) {
			throw new AdminRequestException("This instance has no task queue");
		}
		if (name == null || name.isBlank()) {
			throw new AdminRequestException("Name a queue: one of " + this.queueNames.get());
		}
		if (!this.queueNames.get().contains(name)) {
			throw new AdminRequestException("Unknown queue '" + printable(name) + "': this instance handles "
					+ this.queueNames.get().stream().sorted().toList());
		}
		return queue;
	}

	@Contract("_, null -> fail")
	private static void checkId(String what, @Nullable String id) {
		if (id == null || id.isBlank()) {
			throw new AdminRequestException("Give a " + what);
		}
		if (id.length() > MAX_ID_LENGTH) {
			throw new AdminRequestException("The " + what + " is " + id.length() + " characters long, at most "
					+ MAX_ID_LENGTH + " are allowed");
		}
		if (id.chars().anyMatch(Character::isISOControl)) {
			throw new AdminRequestException("The " + what + " '" + printable(id) + "' contains control characters");
		}
	}

	/**
	 * Accept any task id that enqueue accepts (text that is not blank): ids of any length
	 * and with control characters are acted on like others.
	 */
	@Contract("null -> fail")
	private static void checkTaskId(@Nullable String id) {
		if (id == null || id.isBlank()) {
			throw new AdminRequestException("Give a task id");
		}
	}

	private static void checkCount(String what, int count) {
		if (count < 1 || count > MAX_PAGE) {
			throw new AdminRequestException("'" + what + "' must be between 1 and " + MAX_PAGE + ", is " + count);
		}
	}

	private static String printable(String text) {
		return Printable.of((text.length() > 80) ? text.substring(0, 80) + "..." : text);
	}

	private static QueueSummary summary(String name, QueueDepths depths) {
		return new QueueSummary(name, depths.ready(), depths.delayed(), depths.inflight(), depths.dead(),
				depths.lagMillis(), depths.paused());
	}

}
