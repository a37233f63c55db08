package io.github.redislock.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.faults.LockHistory;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTarget;
import io.github.redislock.test.RedisTargets;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract every kind of lock keeps, run for each kind on a single server and on the
 * Cluster: acquire and release, re-entry, waiting and timing out, expiry and loss, an
 * extension and one after the loss, asking again for a lost hold, fencing order,
 * interrupted waiters (also at random moments), a release from another thread and one by
 * an interrupted thread, exclusion across application instances, and a short randomized
 * concurrent history checked by {@link LockHistory}.
 * <p>
 * A subclass adapts its kind to one shape through hooks: a {@link Contender} acquires
 * (with a wait and an optional fixed lease) on the calling thread and answers a
 * {@link Hold}, which has a fencing token, says whether it is still held, and is
 * released. The suite works with two contenders per application instance: the
 * {@linkplain #subject subject} (the kind under test) and its {@linkplain #rival rival},
 * something the subject excludes and that excludes it: the same kind, or for the sides of
 * a read-write lock the other side (a reader's rival is a writer, a writer's a reader).
 * Where kinds legitimately differ the {@link Traits} say so, and the suite asserts the
 * documented behaviour of each side of the difference rather than skipping.
 * <p>
 * Holds of thread-owned kinds are used on the thread that acquired them; every
 * application instance is a template on a connection factory of its own. Only the public
 * {@code core} API is used on the locks.
 * <p>
 * The randomized tests (the history, waiters interrupted at random moments) print their
 * seeds; {@code -Dredislock.contract.seed=N} replays their random choices (the
 * interleaving of threads is the machine's).
 */
@Tag("server-matrix")
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
abstract class LockContractTests {

	/** A fixed lease short enough to wait out in a test. */
	static final Duration SHORT_LEASE = Duration.ofMillis(300);

	/** A bound for anything that should be prompt; generous for a loaded machine. */
	static final Duration PROMPTLY = Duration.ofSeconds(5);

	private static final int HISTORY_THREADS_PER_INSTANCE = 2;

	private static final int HISTORY_OPERATIONS_PER_THREAD = 30;

	protected final RedisMode mode;

	protected final RedisTarget redis;

	protected LockTemplates templates;

	protected String name;

	private final List<ExecutorService> threads = new ArrayList<>();

	protected LockContractTests(RedisMode mode, RedisTargets targets) {
		this.mode = mode;
		this.redis = targets.get(mode);
	}

	@BeforeEach
	void open() {
		this.templates = new LockTemplates(this.redis);
		this.name = this.redis.lockName("contract-" + getClass().getSimpleName() + "-" + UUID.randomUUID());
	}

	@AfterEach
	void close() throws Exception {
		this.threads.forEach(ExecutorService::shutdownNow);
		this.threads.clear();
		this.templates.close();
	}

	// Hooks

	/**
	 * Return what the kind supports.
	 */
	protected abstract Traits traits();

	/**
	 * Return a new application instance: a template on a connection factory of its own.
	 */
	protected RedisLockTemplate newTemplate() {
		return this.templates.create();
	}

	/**
	 * Return the contender of the kind under test for lock {@code name} of
	 * {@code template}.
	 */
	protected abstract Contender subject(RedisLockTemplate template, String name);

	/**
	 * Return what excludes the subject and is excluded by it; by default the subject's
	 * own kind.
	 */
	protected Contender rival(RedisLockTemplate template, String name) {
		return subject(template, name);
	}

	// The contract

	@Test
	void acquiresAndReleases() {
		Instance first = instance();
		Instance second = instance();
		Hold hold = first.subject().acquire(Duration.ZERO, null).orElseThrow();
		assertThat(hold.isHeld()).isTrue();
		assertThat(hold.fencingToken()).isPositive();
		hold.release();
		assertThat(hold.isHeld()).as("released").isFalse();
		Hold other = second.rival()
			.acquire(Duration.ZERO, null)
			.orElseThrow(() -> new AssertionError(
					"another instance could not take " + this.name + " at once after its release"));
		other.release();
		first.subject().acquire(Duration.ZERO, null).orElseThrow().release();
	}

	@Test
	void reentersWhereTheKindIsReentrant() {
		Instance first = instance();
		Instance second = instance();
		Hold outer = first.subject().acquire(Duration.ZERO, null).orElseThrow();
		if (traits().reentrant()) {
			Hold inner = first.subject().acquire(Duration.ZERO, null).orElseThrow();
			assertThat(inner.fencingToken()).as("re-entry keeps the token").isEqualTo(outer.fencingToken());
			inner.release();
			assertThat(outer.isHeld()).as("held until the last release").isTrue();
			assertThat(second.rival().acquire(Duration.ZERO, null)).as("still taken after the inner release").isEmpty();
			outer.release();
			assertThat(outer.isHeld()).isFalse();
		}
		else {
			// A second acquisition by the same holder is one more holder, which one
			// permit does not allow: it waits and gives up.
			assertThat(first.subject().acquire(Duration.ofMillis(200), null)).as("not re-entrant").isEmpty();
			assertThat(outer.isHeld()).isTrue();
			assertThat(second.rival().acquire(Duration.ZERO, null)).isEmpty();
			outer.release();
		}
		second.rival().acquire(Duration.ZERO, null).orElseThrow().release();
		first.subject().acquire(Duration.ZERO, null).orElseThrow().release();
	}

	@Test
	void aWaiterTimesOutAfterItsWaitAndIsWokenByARelease() throws Exception {
		Instance holder = instance();
		Instance waiting = instance();
		// A long fixed lease: only the release can let the waiter in.
		Hold held = holder.rival().acquire(Duration.ZERO, Duration.ofSeconds(60)).orElseThrow();
		long start = System.nanoTime();
		Optional<Hold> timedOut = waiting.subject().acquire(Duration.ofMillis(300), null);
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		assertThat(timedOut).as("not acquired while held").isEmpty();
		assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(PROMPTLY);
		assertNothingLeftBehind(held, "a waiter that timed out");
		Worker worker = worker();
		Future<Long> woken = worker.submit(() -> {
			Hold hold = waiting.subject().acquire(Duration.ofSeconds(30), null).orElseThrow();
			long acquired = System.nanoTime();
			hold.release();
			return acquired;
		});
		awaitWaiting(worker);
		long released = System.nanoTime();
		held.release();
		long acquired = woken.get(30, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(acquired - released)).as("woken by the release, long before the lease ran out")
			.isLessThan(PROMPTLY);
	}

	@Test
	void aHoldWhoseFixedLeaseRanOutIsTakenByAnotherInstanceAndItsHolderLearnsTheLoss() throws Exception {
		Instance first = instance();
		Instance second = instance();
		Instance third = instance();
		Worker secondThread = worker();
		// Connected first: opening a connection (to a Cluster) may take longer than the
		// lease.
		secondThread.run(() -> second.rival().acquire(Duration.ZERO, null).orElseThrow().release());
		third.subject().acquire(Duration.ZERO, null).orElseThrow().release();
		long start = System.nanoTime();
		Hold stale = first.subject().acquire(Duration.ZERO, SHORT_LEASE).orElseThrow();
		assertThat(stale.isHeld()).isTrue();
		Optional<Hold> early = secondThread.call(() -> second.rival().acquire(Duration.ZERO, null));
		if (Duration.ofNanos(System.nanoTime() - start).compareTo(SHORT_LEASE) < 0) {
			assertThat(early).as("held until the lease ends").isEmpty();
		}
		else if (early.isPresent()) {
			secondThread.run(early.get()::release);
		}
		Hold taken = secondThread.call(() -> second.rival().acquire(Duration.ofSeconds(10), null))
			.orElseThrow(() -> new AssertionError("not taken after the holder's lease ran out"));
		// The hold is used on the thread that took it.
		await().pollInSameThread().atMost(PROMPTLY).until(() -> !stale.isHeld());
		assertThatExceptionOfType(LockLostException.class).as("release of the lost hold")
			.isThrownBy(stale::release)
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(stale.fencingToken()));
		assertThat(secondThread.call(taken::isHeld)).as("the new holder's hold is untouched").isTrue();
		assertThat(third.subject().acquire(Duration.ZERO, null)).as("still taken by the new holder").isEmpty();
		assertThat(secondThread.call(taken::fencingToken)).isGreaterThan(stale.fencingToken());
		secondThread.run(taken::release);
		third.subject().acquire(Duration.ZERO, null).orElseThrow().release();
	}

	@Test
	void anExtensionGivesTheHoldANewFixedLeaseAndOneAfterItsLossAnswersFalse() throws Exception {
		Instance first = instance();
		Instance second = instance();
		Worker secondThread = worker();
		// Connected first (with a wait: opening connections to a Cluster takes a while).
		secondThread.run(() -> second.rival().acquire(PROMPTLY, null).orElseThrow().release());
		// Watchdog-renewed (the default lease is 30 s) until it is extended.
		Hold hold = first.subject().acquire(PROMPTLY, null).orElseThrow();
		long extended = System.nanoTime();
		assertThat(hold.extend(Duration.ofSeconds(1))).isTrue();
		assertThat(hold.isHeld()).isTrue();
		if (Duration.ofNanos(System.nanoTime() - extended).compareTo(Duration.ofMillis(500)) < 0) {
			assertThat(secondThread.call(() -> second.rival().acquire(Duration.ZERO, null)))
				.as("held for the new lease")
				.isEmpty();
		}
		// A fixed lease from then on: no renewal keeps it past the second.
		Hold taken = secondThread.call(() -> second.rival().acquire(Duration.ofSeconds(10), null))
			.orElseThrow(() -> new AssertionError("not taken after the extended lease ran out"));
		await().pollInSameThread().atMost(PROMPTLY).until(() -> !hold.isHeld());
		assertThat(hold.extend(Duration.ofSeconds(30))).as("extended after its loss").isFalse();
		assertThat(secondThread.call(taken::isHeld)).as("the new holder's hold is untouched").isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(hold::release);
		secondThread.run(taken::release);
		first.subject().acquire(Duration.ZERO, null).orElseThrow().release();
	}

	@Test
	void aHolderAskingAgainForItsLostHoldGetsAFreshOneOrNothingButNoException() throws Exception {
		Instance first = instance();
		Instance second = instance();
		Worker secondThread = worker();
		// Both connected first (with a wait: opening connections to a Cluster takes a
		// while, maybe longer than the short lease).
		secondThread.run(() -> second.rival().acquire(PROMPTLY, null).orElseThrow().release());
		first.subject().acquire(PROMPTLY, null).orElseThrow().release();
		Hold stale = first.subject().acquire(Duration.ZERO, SHORT_LEASE).orElseThrow();
		await().pollInSameThread().atMost(PROMPTLY).until(() -> !stale.isHeld());
		// Free in Redis: a fresh hold (for a re-entrant kind, in place of the lost one).
		Hold fresh = first.subject().acquire(Duration.ZERO, null).orElseThrow();
		assertThat(fresh.fencingToken()).as("a new hold's token").isGreaterThan(stale.fencingToken());
		assertThat(fresh.isHeld()).isTrue();
		assertThat(secondThread.call(() -> second.rival().acquire(Duration.ZERO, null))).as("taken again").isEmpty();
		fresh.release();
		if (traits().reentrant()) {
			// The lost hold's outstanding acquisition carried over to the fresh hold:
			// it still needs its release, which frees the lock.
			assertThat(stale.isHeld()).as("held by the fresh hold until the last release").isTrue();
			stale.release();
		}
		else {
			assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::release);
		}
		Hold next = secondThread.call(() -> second.rival().acquire(Duration.ZERO, null))
			.orElseThrow(() -> new AssertionError("not free after the last release"));
		secondThread.run(next::release);
		// Lost, and another instance holds it now: not acquired within the wait, and no
		// exception.
		Hold stale2 = first.subject().acquire(Duration.ZERO, SHORT_LEASE).orElseThrow();
		Hold taken = secondThread.call(() -> second.rival().acquire(Duration.ofSeconds(10), null)).orElseThrow();
		await().pollInSameThread().atMost(PROMPTLY).until(() -> !stale2.isHeld());
		long start = System.nanoTime();
		assertThat(first.subject().acquire(Duration.ofMillis(200), null)).as("while another instance holds it")
			.isEmpty();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
		assertThat(first.subject().acquire(Duration.ZERO, null)).isEmpty();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(stale2::release);
		assertThat(secondThread.call(taken::isHeld)).isTrue();
		secondThread.run(taken::release);
		first.subject().acquire(Duration.ZERO, null).orElseThrow().release();
	}

	@Test
	void aReleaseFromAnotherThreadIsRefusedWhereHoldsBelongToThreads() throws Exception {
		Instance first = instance();
		Instance second = instance();
		Hold held = first.subject().acquire(Duration.ZERO, null).orElseThrow();
		Worker otherThread = worker();
		if (traits().threadOwned()) {
			Throwable refused = otherThread.call(() -> {
				try {
					held.release();
					return null;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
			assertThat(refused).as("released by a thread not holding it")
				.isInstanceOf(IllegalMonitorStateException.class)
				.hasMessageContaining(this.name);
			assertThat(held.isHeld()).as("the holder's hold is untouched").isTrue();
			assertThat(second.rival().acquire(Duration.ZERO, null)).isEmpty();
			held.release();
		}
		else {
			// The hold belongs to its holder, whichever thread releases it.
			otherThread.run(held::release);
			assertThat(held.isHeld()).isFalse();
		}
		second.rival().acquire(Duration.ZERO, null).orElseThrow().release();
	}

	@Test
	void aHolderWhoseThreadWasInterruptedReleasesNormallyAndKeepsItsInterruptStatus() throws Exception {
		Instance first = instance();
		Instance second = instance();
		ReleaseOutcome outcome = worker().call(() -> {
			Hold hold = first.subject().acquire(Duration.ZERO, null).orElseThrow();
			// As in the finally block of work that was cancelled.
			Thread.currentThread().interrupt();
			try {
				hold.release();
				return new ReleaseOutcome(null, Thread.interrupted(), hold.isHeld());
			}
			catch (RuntimeException ex) {
				return new ReleaseOutcome(ex, Thread.interrupted(), hold.isHeld());
			}
		});
		assertThat(outcome.failure()).as("release by an interrupted thread").isNull();
		assertThat(outcome.interruptKept()).as("interrupt status kept").isTrue();
		assertThat(outcome.stillHeld()).as("released").isFalse();
		second.rival()
			.acquire(Duration.ZERO, null)
			.orElseThrow(() -> new AssertionError("not free at once after its release"))
			.release();
	}

	@Test
	void fencingTokensStrictlyIncreaseAcrossSuccessiveHolders() {
		List<Instance> instances = List.of(instance(), instance());
		long previous = 0;
		for (int i = 0; i < 12; i++) {
			Instance instance = instances.get(i % 2);
			Contender contender = (i % 4 < 2) ? instance.subject() : instance.rival();
			Hold hold = contender.acquire(Duration.ofSeconds(5), null).orElseThrow();
			long token = hold.fencingToken();
			assertThat(token).as("token of holder " + i).isGreaterThan(previous);
			hold.release();
			previous = token;
		}
	}

	@Test
	void anInterruptedWaiterStopsPromptlyAndLeavesNothingBehind() throws Exception {
		Instance holder = instance();
		Instance waiting = instance();
		Instance later = instance();
		Hold held = holder.rival().acquire(Duration.ZERO, null).orElseThrow();
		CompletableFuture<WaitOutcome> outcome = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			Optional<Hold> hold = waiting.subject().acquire(Duration.ofSeconds(60), null);
			long returned = System.nanoTime();
			boolean interrupted = Thread.currentThread().isInterrupted();
			hold.ifPresent(Hold::release);
			outcome.complete(new WaitOutcome(hold.isPresent(), interrupted, returned));
		}, "contract-waiter");
		waiter.setDaemon(true);
		waiter.start();
		await().atMost(PROMPTLY).until(() -> isWaiting(waiter));
		long interruptedAt = System.nanoTime();
		waiter.interrupt();
		WaitOutcome result = outcome.get(30, TimeUnit.SECONDS);
		assertThat(result.acquired()).as("acquired although interrupted").isFalse();
		assertThat(result.interrupted()).as("interrupt status kept").isTrue();
		assertThat(Duration.ofNanos(result.returnedNanos() - interruptedAt)).as("stopped waiting").isLessThan(PROMPTLY);
		assertNothingLeftBehind(held, "an interrupted waiter");
		WaitOutcome already = worker().call(() -> {
			Thread.currentThread().interrupt();
			long start = System.nanoTime();
			Optional<Hold> hold = waiting.subject().acquire(Duration.ofSeconds(60), null);
			boolean interrupted = Thread.interrupted();
			hold.ifPresent(Hold::release);
			return new WaitOutcome(hold.isPresent(), interrupted, System.nanoTime() - start);
		});
		assertThat(already.acquired()).as("acquired by a thread interrupted before it asked").isFalse();
		assertThat(already.interrupted()).as("interrupt status kept").isTrue();
		assertThat(Duration.ofNanos(already.returnedNanos())).as("gave up at once").isLessThan(PROMPTLY);
		held.release();
		later.subject()
			.acquire(Duration.ZERO, null)
			.orElseThrow(() -> new AssertionError(
					"the interrupted waiter left something behind: " + this.name + " not free after its release"))
			.release();
		later.rival().acquire(Duration.ZERO, null).orElseThrow().release();
		// Nor in its own instance, on a thread of its own.
		worker().run(() -> waiting.subject().acquire(Duration.ZERO, null).orElseThrow().release());
	}

	/**
	 * Waiters interrupted at random moments (before they ask, while an attempt is on its
	 * way, while they wait, as the lock frees up), on a free or a held lock: whatever
	 * they were granted goes back, so the next acquirer never waits for a lease to run
	 * out.
	 */
	@Test
	void waitersInterruptedAtRandomMomentsLeaveNothingBehind() throws Exception {
		long seed = seed("interrupts");
		Random random = new Random(seed);
		Instance waiting = instance();
		Instance holder = instance();
		Instance next = instance();
		for (int i = 0; i < 30; i++) {
			String at = "iteration " + i + ", seed " + seed;
			boolean contended = random.nextBoolean();
			Hold held = contended ? holder.rival().acquire(PROMPTLY, null).orElseThrow() : null;
			CompletableFuture<Boolean> outcome = new CompletableFuture<>();
			Thread waiter = new Thread(() -> {
				try {
					Optional<Hold> hold = waiting.subject().acquire(Duration.ofSeconds(30), null);
					hold.ifPresent(Hold::release);
					outcome.complete(hold.isPresent());
				}
				catch (Throwable ex) {
					outcome.completeExceptionally(ex);
				}
			}, "contract-waiter-" + i);
			waiter.setDaemon(true);
			waiter.start();
			LockSupport.parkNanos(random.nextInt(3_000_000));
			waiter.interrupt();
			boolean acquired = outcome.get(30, TimeUnit.SECONDS);
			assertThat(!contended || !acquired).as("acquired while held, " + at).isTrue();
			if (held != null) {
				held.release();
			}
			long start = System.nanoTime();
			Hold after = next.subject()
				.acquire(PROMPTLY, null)
				.orElseThrow(() -> new AssertionError("left behind by an interrupted waiter, " + at));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as(at).isLessThan(PROMPTLY);
			after.release();
		}
	}

	@Test
	void twoInstancesExcludeEachOther() throws Exception {
		Instance first = instance();
		Instance second = instance();
		Instance third = instance();
		Hold held = first.subject().acquire(Duration.ZERO, null).orElseThrow();
		Worker secondThread = worker();
		Optional<Hold> alongside = secondThread.call(() -> second.subject().acquire(Duration.ZERO, null));
		if (traits().shared()) {
			assertThat(alongside).as("shared with another instance").isPresent();
		}
		else {
			assertThat(alongside).as("exclusive across instances").isEmpty();
		}
		assertThat(worker().call(() -> third.rival().acquire(Duration.ofMillis(100), null)))
			.as("the rival excluded across instances")
			.isEmpty();
		if (alongside.isPresent()) {
			secondThread.run(alongside.get()::release);
		}
		held.release();
		Hold next = secondThread.call(() -> second.subject().acquire(Duration.ZERO, null)).orElseThrow();
		assertThat(secondThread.call(next::fencingToken)).isGreaterThan(held.fencingToken());
		secondThread.run(next::release);
		worker().run(() -> third.rival().acquire(Duration.ZERO, null).orElseThrow().release());
	}

	@Test
	void aRandomizedConcurrentHistoryOfTwoInstancesIsSound() throws Exception {
		long seed = seed("history");
		String run = getClass().getSimpleName() + " (" + this.mode + ")";
		LockHistory history = new LockHistory();
		ExecutorService pool = Executors.newFixedThreadPool(2 * HISTORY_THREADS_PER_INSTANCE);
		this.threads.add(pool);
		List<Future<?>> work = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			Instance instance = instance();
			for (int t = 0; t < HISTORY_THREADS_PER_INSTANCE; t++) {
				String client = "instance-" + i + "/thread-" + t;
				Random random = new Random(seed + i * HISTORY_THREADS_PER_INSTANCE + t);
				work.add(pool.submit(() -> {
					for (int op = 0; op < HISTORY_OPERATIONS_PER_THREAD; op++) {
						operate(instance, client, random, history);
					}
					return null;
				}));
			}
		}
		for (Future<?> future : work) {
			future.get(2, TimeUnit.MINUTES);
		}
		assertThat(history.holdCount()).isEqualTo(2 * HISTORY_THREADS_PER_INSTANCE * HISTORY_OPERATIONS_PER_THREAD);
		assertThat(history.violations()).as(run + ", seed " + seed).isEmpty();
	}

	private void operate(Instance instance, String client, Random random, LockHistory history) {
		boolean rival = traits().rivalDiffers() && random.nextInt(3) == 0;
		Contender contender = rival ? instance.rival() : instance.subject();
		long sent = LockHistory.nowMicros();
		Hold hold = contender.acquire(Duration.ofSeconds(60), null)
			.orElseThrow(() -> new IllegalStateException(client + " did not get " + this.name));
		long from = LockHistory.nowMicros();
		long token = hold.fencingToken();
		int reentries = traits().reentrant() ? random.nextInt(3) : 0;
		List<Hold> inner = new ArrayList<>();
		for (int i = 0; i < reentries; i++) {
			inner.add(contender.acquire(Duration.ZERO, null).orElseThrow());
		}
		LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(2000)));
		inner.forEach(Hold::release);
		assertThat(hold.isHeld()).as(client + " still holds " + this.name).isTrue();
		long to = LockHistory.nowMicros();
		hold.release();
		contender.record(history, client, this.name, token, sent, from, to);
	}

	// Helpers

	/**
	 * Return the seed of a randomized test, printed; {@code -Dredislock.contract.seed}
	 * replays one.
	 */
	private long seed(String test) {
		String fixedSeed = System.getProperty("redislock.contract.seed");
		long seed = (fixedSeed != null) ? Long.parseLong(fixedSeed) : new Random().nextLong();
		System.out.println(getClass().getSimpleName() + " (" + this.mode + "): " + test + " seed " + seed
				+ " (replay with -Dredislock.contract.seed=" + seed + ")");
		return seed;
	}

	/**
	 * Check that nothing a waiter left behind delays others while {@code held} still
	 * holds: where the holder's side is shared, another instance joins it at once (a
	 * writer that stopped waiting must not hold back readers).
	 */
	private void assertNothingLeftBehind(Hold held, String what) throws Exception {
		if (traits().rivalShared()) {
			Instance joining = instance();
			worker().run(() -> joining.rival()
				.acquire(Duration.ZERO, null)
				.orElseThrow(() -> new AssertionError(what + " held back another holder of the shared side"))
				.release());
		}
		assertThat(held.isHeld()).isTrue();
	}

	protected Instance instance() {
		RedisLockTemplate template = newTemplate();
		return new Instance(subject(template, this.name), rival(template, this.name));
	}

	private Worker worker() {
		ExecutorService thread = Executors.newSingleThreadExecutor();
		this.threads.add(thread);
		return new Worker(thread);
	}

	private static void awaitWaiting(Worker worker) {
		await().atMost(PROMPTLY).until(() -> worker.thread != null && isWaiting(worker.thread));
	}

	private static boolean isWaiting(Thread thread) {
		Thread.State state = thread.getState();
		return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
	}

	/**
	 * What a kind supports.
	 *
	 * @param reentrant whether the holder may acquire again without waiting, keeping the
	 * token (otherwise a second acquisition is one more holder)
	 * @param shared whether holders of the kind share it (otherwise exclusive)
	 * @param rivalShared whether holders of the rival share it
	 * @param rivalDiffers whether the rival is another kind (the other side of a
	 * read-write lock)
	 * @param threadOwned whether a hold belongs to the thread that took it (only that
	 * thread may release it; otherwise it belongs to its holder, and any thread may)
	 */
	protected record Traits(boolean reentrant, boolean shared, boolean rivalShared, boolean rivalDiffers,
			boolean threadOwned) {

		/**
		 * Exclusive, re-entrant, its own rival, owned by a thread: an exclusive lock, a
		 * RedLock.
		 */
		static final Traits EXCLUSIVE = new Traits(true, false, false, false, true);

	}

	/**
	 * One application instance's contenders for the lock under test.
	 */
	protected record Instance(Contender subject, Contender rival) {
	}

	/**
	 * Something that takes the lock.
	 */
	protected interface Contender {

		/**
		 * Take it on the calling thread, waiting up to {@code waitTime}.
		 * @param leaseTime a fixed lease, or {@code null} for a watchdog-renewed one
		 * @return the hold, or empty when not acquired in time (or interrupted, with the
		 * interrupt status then set)
		 */
		Optional<Hold> acquire(Duration waitTime, @Nullable Duration leaseTime);

		/**
		 * Record a hold in the history as this kind's holds are checked.
		 */
		void record(LockHistory history, String client, String lock, long token, long sentMicros, long fromMicros,
				long toMicros);

		/**
		 * A thread-owned lock (exclusive, a side of a read-write lock, RedLock).
		 */
		static Contender of(RedisLock lock, boolean shared) {
			return new Contender() {

				@Override
				public Optional<Hold> acquire(Duration waitTime, @Nullable Duration leaseTime) {
					if (!lock.tryLock(waitTime, leaseTime)) {
						return Optional.empty();
					}
					long token = lock.fencingToken();
					return Optional.of(new Hold() {

						@Override
						public long fencingToken() {
							return token;
						}

						@Override
						public boolean isHeld() {
							return lock.isHeldByCurrentThread();
						}

						@Override
						public void release() {
							lock.unlock();
						}

						@Override
						public boolean extend(Duration lease) {
							return lock.extend(lease);
						}

					});
				}

				@Override
				public void record(LockHistory history, String client, String name, long token, long sentMicros,
						long fromMicros, long toMicros) {
					if (shared) {
						history.heldShared(client, name, token, fromMicros, toMicros);
					}
					else {
						history.held(client, name, token, fromMicros, toMicros);
					}
				}

			};
		}

		/**
		 * A semaphore: each acquisition is a permit of its own.
		 */
		static Contender of(RedisSemaphore semaphore) {
			return new Contender() {

				@Override
				public Optional<Hold> acquire(Duration waitTime, @Nullable Duration leaseTime) {
					return semaphore.tryAcquire(waitTime, leaseTime).map((permit) -> new Hold() {

						@Override
						public long fencingToken() {
							return permit.fencingToken();
						}

						@Override
						public boolean isHeld() {
							return permit.isHeld();
						}

						@Override
						public void release() {
							permit.close();
						}

						@Override
						public boolean extend(Duration lease) {
							return permit.extend(lease);
						}

						@Override
						public String toString() {
							return permit.toString();
						}

					});
				}

				@Override
				public void record(LockHistory history, String client, String name, long token, long sentMicros,
						long fromMicros, long toMicros) {
					history.heldPermit(client, name, semaphore.getPermits(), token, sentMicros, fromMicros, toMicros);
				}

			};
		}

	}

	/**
	 * A hold of the lock: a lock hold or a {@link SemaphorePermit}.
	 */
	protected interface Hold {

		/**
		 * Return the token issued when it was acquired.
		 */
		long fencingToken();

		/**
		 * Return whether the holder still believes it holds it.
		 */
		boolean isHeld();

		/**
		 * Release it; throws {@link LockLostException} when it had been lost.
		 */
		void release();

		/**
		 * Extend it to a new fixed lease from now; {@code false} when it is gone.
		 */
		boolean extend(Duration lease);

	}

	private record ReleaseOutcome(@Nullable RuntimeException failure, boolean interruptKept, boolean stillHeld) {
	}

	private record WaitOutcome(boolean acquired, boolean interrupted, long returnedNanos) {
	}

	/**
	 * A thread of its own, for holds owned by threads.
	 */
	private static final class Worker {

		private final ExecutorService executor;

		private volatile @Nullable Thread thread;

		Worker(ExecutorService executor) {
			this.executor = executor;
		}

		<T> Future<T> submit(Callable<T> action) {
			return this.executor.submit(() -> {
				this.thread = Thread.currentThread();
				return action.call();
			});
		}

		<T> T call(Callable<T> action) throws Exception {
			return submit(action).get(60, TimeUnit.SECONDS);
		}

		void run(Runnable action) throws Exception {
			call(() -> {
				action.run();
				return null;
			});
		}

	}

}
