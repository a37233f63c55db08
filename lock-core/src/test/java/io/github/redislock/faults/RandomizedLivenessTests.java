package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random exclusive and read-write locking from threads of two instances, with mixed
 * leases (short watchdog, long fixed, fixed shorter than the work), mixed waits (0, a few
 * milliseconds, seconds), waiters interrupted while they wait, and holders that vanish:
 * locks deleted behind their holders' backs or force-unlocked, and (on a single server) a
 * holder in a child JVM killed with SIGKILL. Checked for safety ({@link LockHistory}: no
 * overlap of believed-held intervals, tokens in hold order) and for liveness
 * ({@link LivenessHistory}: whenever a lock is surely free and someone waits with time
 * left, some waiter gets it within {@value #LIVENESS_BOUND_MILLIS} ms).
 * <p>
 * Prints its seed; {@code -Dredislock.liveness.seed=N} replays the random choices (the
 * interleaving of threads is the machine's).
 * <p>
 * <p>
 * Threads have roles, so that the patterns behind the known read-write liveness bugs
 * recur: readers with short leases on one instance behind a writer with a long fixed
 * lease on the other (a waiters' flag that lived only for the waiter's lease), a writer
 * that gives up before its first answer (a marker left behind), and a thread doing
 * anything, the last two only in the second half of the run. Reverting either fix makes
 * it fail. It also led to a lost wake-up (a writer giving up did not wake the readers of
 * its own instance), now fixed and pinned by {@code ReadWriteLivenessTests}.
 */
@Tag("slow-fault")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class RandomizedLivenessTests {

	private static final long LIVENESS_BOUND_MILLIS = 2000;

	private static final Duration RUN = Duration.ofSeconds(20);

	private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(1);

	private static final Duration LONG_LEASE = Duration.ofSeconds(6);

	private static final Duration SHORT_LEASE = Duration.ofMillis(300);

	private static final int THREADS_PER_INSTANCE = 3;

	/**
	 * How long before an acquisition returned Redis may have granted it (one reply's way,
	 * generously).
	 */
	private static final long GRANT_MARGIN_MICROS = 100_000;

	private final RedisMode mode;

	private final RedisTarget redis;

	private final StringRedisTemplate raw;

	private final List<DefaultRedisLockTemplate> instances = new ArrayList<>();

	private final String exclusive;

	private final String readWrite;

	private final LockHistory safety = new LockHistory();

	private final LivenessHistory liveness = new LivenessHistory();

	private volatile long secondHalf;

	RandomizedLivenessTests(RedisMode mode, RedisTargets targets) {
		this.mode = mode;
		this.redis = targets.get(mode);
		this.raw = this.redis.template();
		this.exclusive = this.redis.lockName("live-ex-" + UUID.randomUUID());
		this.readWrite = this.redis.lockName("live-rw-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		for (DefaultRedisLockTemplate instance : this.instances) {
			instance.destroy();
		}
	}

	@Test
	void everyWaiterIsServedWhileTheLockIsFreeAndNoTwoHoldersOverlap() throws Exception {
		String fixedSeed = System.getProperty("redislock.liveness.seed");
		long seed = (fixedSeed != null) ? Long.parseLong(fixedSeed) : new Random().nextLong();
		System.out.println("RandomizedLivenessTests (" + this.mode + "): seed " + seed
				+ " (replay with -Dredislock.liveness.seed=" + seed + ")");
		for (int i = 0; i < 2; i++) {
			this.instances.add(new DefaultRedisLockTemplate(this.redis.connectionFactory(),
					LockSettings.DEFAULTS.withLeaseTime(WATCHDOG_LEASE)));
		}
		int workers = 2 * THREADS_PER_INSTANCE;
		AtomicReferenceArray<Thread> interruptible = new AtomicReferenceArray<>(workers);
		long end = System.nanoTime() + RUN.toNanos();
		this.secondHalf = end - RUN.toNanos() / 2;
		ExecutorService threads = Executors.newFixedThreadPool(workers + 2);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int w = 0; w < workers; w++) {
				int worker = w;
				DefaultRedisLockTemplate instance = this.instances.get(w % 2);
				Random random = new Random(seed + w);
				String client = "instance-" + (w % 2) + "/thread-" + w;
				work.add(threads.submit(() -> {
					while (System.nanoTime() < end) {
						Thread.interrupted();
						operate(instance, client, random, worker, interruptible);
					}
					return null;
				}));
			}
			Random interrupts = new Random(seed - 1);
			work.add(threads.submit(() -> {
				while (System.nanoTime() < end) {
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200 + interrupts.nextInt(400)));
					Thread waiting = interruptible.get(interrupts.nextInt(workers));
					if (waiting != null) {
						waiting.interrupt();
					}
				}
				return null;
			}));
			if (this.redis instanceof RedisServer server) {
				work.add(threads.submit(() -> killedHolders(server, end)));
			}
			for (Future<?> future : work) {
				future.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(this.liveness.waitCount()).as("waits recorded").isGreaterThan(20);
		assertThat(this.safety.violations()).as("safety, seed " + seed).isEmpty();
		assertThat(this.liveness.violations(TimeUnit.MILLISECONDS.toMicros(LIVENESS_BOUND_MILLIS)))
			.as("liveness, seed " + seed)
			.isEmpty();
	}

	private void operate(DefaultRedisLockTemplate instance, String client, Random random, int worker,
			AtomicReferenceArray<Thread> interruptible) throws InterruptedException {
		// Roles by thread: two use everything at random; the others keep to one pattern
		// each, so that the patterns behind the known liveness bugs recur: readers with
		// short leases waiting long on one instance, writers with long fixed leases on
		// the
		// other, and a writer that gives up before its first answer.
		int role = worker % 6;
		if ((role == 3 || role == 5) && System.nanoTime() < this.secondHalf) {
			// The writer that gives up at once, and a thread doing anything, would keep
			// the waiters' flag alive for everyone: they only play in the second half of
			// the run, the first is for readers with short leases behind long writes.
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
			return;
		}
		int side = (role == 0 || role == 4) ? 5
				: (role == 1 || role == 3) ? 9 : (role == 2) ? random.nextInt(4) : random.nextInt(10);
		boolean exclusiveLock = side < 4;
		boolean write = side >= 7;
		String name = exclusiveLock ? this.exclusive : this.readWrite;
		RedisLock lock = exclusiveLock ? instance.getLock(name)
				: write ? instance.getReadWriteLock(name).writeLock() : instance.getReadWriteLock(name).readLock();
		String key = "redislock:{" + name + "}" + (exclusiveLock ? "" : write ? ":write" : ":read");
		int leaseKind = (role == 0 || role == 4) ? 9 : (role == 1 || role == 3) ? 4 : random.nextInt(10);
		Duration lease = (leaseKind < 3) ? null : (leaseKind < 6) ? LONG_LEASE : SHORT_LEASE;
		// Waits: none, shorter than one round trip (the first attempt is the last), a few
		// milliseconds, or seconds.
		// The long-lease writer takes the lock only when it is free at once, so that it
		// never
		// sets the waiters' flag itself.
		int waitKind = (role == 3) ? 3 : (role == 1) ? 0 : random.nextInt(20);
		Duration wait = (waitKind < 2) ? Duration.ZERO
				: (waitKind < 5) ? Duration.ofNanos(20_000 + random.nextInt(150_000))
						: (waitKind < 7) ? Duration.ofMillis(3)
								: Duration.ofMillis(((role == 0 || role == 4) ? 5000 : 2500) + random.nextInt(2000));
		long work = (lease == SHORT_LEASE) ? 400 + random.nextInt(300)
				: (lease == LONG_LEASE) ? 1000 + random.nextInt(1000) : random.nextInt(300);
		boolean canBeInterrupted = random.nextInt(5) == 0;
		int vanish = random.nextInt(20);

		long sent = LockHistory.nowMicros();
		boolean acquired;
		String outcome;
		try {
			if (canBeInterrupted && lease == null) {
				interruptible.set(worker, Thread.currentThread());
				try {
					acquired = lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS);
				}
				finally {
					interruptible.set(worker, null);
				}
			}
			else {
				acquired = lock.tryLock(wait, lease);
			}
			outcome = acquired ? "acquired" : "timeout";
		}
		catch (InterruptedException ex) {
			acquired = false;
			outcome = "interrupted";
		}
		long returned = LockHistory.nowMicros();
		if (wait.toMillis() >= 100) {
			String what = (exclusiveLock ? "exclusive" : write ? "write" : "read") + ", lease "
					+ ((lease != null) ? lease.toMillis() + "ms" : "watchdog");
			this.liveness.waited(client + " (" + what + ")", name, sent, returned, outcome);
		}
		if (!acquired) {
			if (role == 3 || role == 1) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(300)));
			}
			return;
		}
		long token = lock.fencingToken();
		long believedUntil = Long.MAX_VALUE;
		long keptUntil = Long.MAX_VALUE;
		if (lease != null) {
			believedUntil = sent + lease.toNanos() / 1000;
			keptUntil = returned + lease.toNanos() / 1000;
		}
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(work));
		if (lease == null && vanish == 0 && !(name.equals(this.readWrite) && !write)) {
			// Deleted behind the holder's back: Redis frees it now, without telling
			// anyone; waiters find out when the holder's (one second) lease would end.
			long deleting = LockHistory.nowMicros();
			this.raw.delete(key);
			long deleted = LockHistory.nowMicros();
			believedUntil = Math.min(believedUntil, deleting);
			keptUntil = Math.min(keptUntil, deleted);
		}
		else if (lease == LONG_LEASE && vanish == 1 && !(name.equals(this.readWrite) && !write)) {
			long forcing = LockHistory.nowMicros();
			lock.forceUnlock();
			believedUntil = Math.min(believedUntil, forcing);
			keptUntil = Math.min(keptUntil, LockHistory.nowMicros());
		}
		long releasing = LockHistory.nowMicros();
		try {
			lock.unlock();
		}
		catch (LockLostException ex) {
			// Expected after a deletion, a forced unlock or a fixed lease shorter than
			// the work.
		}
		long released = LockHistory.nowMicros();
		believedUntil = Math.min(believedUntil, releasing);
		keptUntil = Math.min(keptUntil, released);
		// Redis granted it when the last attempt ran: at most a reply's way before it
		// returned (not from the start of the wait, which would hide free time).
		this.liveness.held(name, Math.max(sent, returned - GRANT_MARGIN_MICROS), keptUntil,
				client + " " + (exclusiveLock ? "exclusive" : write ? "write" : "read") + " lease "
						+ ((lease != null) ? lease.toMillis() + "ms" : "watchdog") + ", work " + work + "ms"
						+ ((vanish == 0 && lease == null) ? ", deleted"
								: (vanish == 1 && lease == LONG_LEASE) ? ", forced" : ""));
		if (!exclusiveLock && !write) {
			this.safety.heldShared(client, name, token, returned, Math.max(returned, believedUntil));
		}
		else {
			this.safety.held(client, name, token, returned, Math.max(returned, believedUntil));
		}
		if (role == 0 || role == 4) {
			// Readers leave gaps, in which the long-lease writer takes the lock.
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(1500)));
		}
	}

	/**
	 * A holder in a JVM of its own takes the exclusive lock and is killed while it holds
	 * it: Redis frees it when its one-second lease runs out.
	 */
	private Void killedHolders(RedisServer server, long end) {
		while (System.nanoTime() < end - TimeUnit.SECONDS.toNanos(5)) {
			try (ChildJvm child = ChildJvm.start(LockHolderProcess.class, Integer.toString(server.port()),
					this.exclusive, Long.toString(WATCHDOG_LEASE.toMillis()), "watchdog")) {
				child.await("READY", Duration.ofSeconds(60));
				child.send("ACQUIRE");
				String[] held = child.await("HELD", Duration.ofSeconds(60));
				long token = Long.parseLong(held[0]);
				long sent = Long.parseLong(held[1]);
				long returned = Long.parseLong(held[2]);
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
				child.kill();
				long killed = LockHistory.nowMicros();
				this.safety.held("child", this.exclusive, token, returned, killed);
				// Renewed until the kill: Redis keeps it one lease longer at most.
				this.liveness.held(this.exclusive, Math.max(sent, returned - GRANT_MARGIN_MICROS),
						killed + WATCHDOG_LEASE.toNanos() / 1000 + 50_000);
			}
		}
		return null;
	}

}
