package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisSemaphore;
import io.github.redislock.core.SemaphorePermit;
import io.github.redislock.internal.lock.AsyncHold;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.RedisCluster;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos through transitions (issue #27): two application instances (lock templates of
 * their own, with watchdog leases of 1 s and 3 s) take exclusive locks, both sides of
 * read-write locks and semaphore permits from several threads each, with mixed leases
 * (watchdog, fixed and long, fixed and shorter than the work), mixed waits, some with
 * {@code holdAtLeast}, some as asynchronous holds, while a chaos thread drives the Redis
 * under them through transitions chosen at random: on a six-node Cluster, slot moves of a
 * lock's slot to another master and back, coordinated failovers, a killed master taken
 * over by its replica (then a new, empty node joins as the replica in its place), frozen
 * masters (SIGSTOP, below the cluster node timeout), bursts of killed pub/sub
 * connections; on one server, short freezes and bursts of killed pub/sub connections;
 * and, on both, waiters interrupted (or their asynchronous acquisitions cancelled). Six
 * locks, two on each master, so a frozen or failed master always has healthy neighbours.
 * Two of the workers, one on each instance, hand one lock to each other over and over
 * (long fixed leases, sometimes a minimum hold), so that every hand-off needs a release
 * message to cross instances; the chaos aims at their lock half the time. With killed
 * masters, acquisitions wait for a replica's acknowledgement. Checked:
 * <ol>
 * <li>Safety ({@link LockHistory}): no two believed holders of an exclusive lock or a
 * write side, nor a writer with readers, never more believed permits than a semaphore
 * has, fencing tokens in hold order. A hold is believed from the return of its
 * acquisition until the last time its holder saw it held ({@code isHeld}), checked at
 * least every 100 ms and right before the release.</li>
 * <li>No hold of a healthy lock lost: a hold whose lock no transition touched during the
 * hold (its master not frozen, killed or failed over, its slot not moved) is never
 * reported lost (by {@code isHeld}, the release, or the lock-lost listener), and neither
 * its acquisition nor its release fails.</li>
 * <li>Liveness ({@link LivenessHistory}): whenever a lock is surely free and someone
 * waits for it with time left, a waiter gets it within {@value #LIVENESS_BOUND_MILLIS}
 * ms; only the windows in which the lock's slot is truly unreachable (its master frozen,
 * killed until its replica took over and a new replica joined, or pausing writes for a
 * coordinated failover) do not count as free.</li>
 * <li>Afterwards every lock is free again within the longest lease (no leaked permit or
 * hold).</li>
 * </ol>
 * Prints its seed; {@code -Dredislock.chaos.seed=N} replays the random choices (the
 * interleaving is the machine's). {@code -Dredislock.chaos.transitions=slot-move,
 * failover,kill-master,freeze,pubsub-kill,interrupt,hold-at-least} selects what happens
 * (default: all), {@code -Dredislock.chaos.seconds=N} how long (default 35). A liveness
 * violation prints the holds and waits of its lock; for reading one further,
 * {@code -Dredislock.chaos.monitor=true} records {@code MONITOR} of every Cluster node to
 * {@code target/chaos-monitor-N.txt} (with {@code redis-cli}).
 */
@Tag("slow-fault")
class TransitionChaosTests {

	private static final long LIVENESS_BOUND_MILLIS = 2000;

	private static final Duration CHAOS = Duration.ofSeconds(Long.getLong("redislock.chaos.seconds", 35));

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * The watchdog leases of the two instances: renewed every third of it, so a renewal
	 * of the first may be late by at most about 600 ms (less than a command timeout) and
	 * the second's holds outlast a freeze.
	 */
	private static final Duration[] WATCHDOG_LEASES = { Duration.ofMillis(1000), Duration.ofMillis(3000) };

	private static final Duration LONG_LEASE = Duration.ofSeconds(6);

	/** A fixed lease shorter than the work done under it: such holds are lost. */
	private static final Duration SHORT_LEASE = Duration.ofMillis(500);

	private static final int PERMITS = 2;

	private static final int THREADS_PER_INSTANCE = 4;

	private static final long PAIR_SLICE_MILLIS = 4000;

	/**
	 * How long after a shard changed master its masters vote for a replica of it again
	 * (twice the cluster node timeout).
	 */
	private static final long MASTERS_VOTE_AGAIN_NANOS = TimeUnit.SECONDS.toNanos(10);

	/** How much longer than its lease Redis may keep a key (clocks, expiry cycle). */
	private static final long MARGIN_MICROS = 100_000;

	/**
	 * How long after a transition its effects may still show (a client learning the new
	 * topology, a loss noticed at the next deadline check).
	 */
	private static final long SETTLE_MICROS = 1_500_000;

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final List<DefaultRedisLockTemplate> instances = new ArrayList<>();

	private final Map<String, String> lostEvents = new ConcurrentHashMap<>();

	private final List<HoldRecord> holds = new CopyOnWriteArrayList<>();

	private final List<WaitRecord> waits = new CopyOnWriteArrayList<>();

	private final List<Touch> touches = new CopyOnWriteArrayList<>();

	private final List<Outage> outages = new CopyOnWriteArrayList<>();

	private final List<Touch> kills = new CopyOnWriteArrayList<>();

	/** Pub/sub kills: no lock's hold may be lost to them; named next to violations. */
	private final List<Touch> pubSubKills = new CopyOnWriteArrayList<>();

	private final Map<Transition, AtomicInteger> performed = new EnumMap<>(Transition.class);

	private final Waiter[] waiters = new Waiter[2 * THREADS_PER_INSTANCE];

	private final PubSubKiller pubSubKiller = new PubSubKiller();

	private List<LockSpec> locks;

	/** The locks the pair of workers hands to each other, in turn. */
	private List<LockSpec> pairLocks;

	private volatile long started;

	private volatile long startedMicros;

	private Set<Transition> transitions;

	@AfterEach
	void close() throws Exception {
		this.pubSubKiller.close();
		for (DefaultRedisLockTemplate instance : this.instances) {
			try {
				instance.destroy();
			}
			catch (Exception ex) {
				// Closing anyway.
			}
		}
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void sixNodeClusterThroughSlotMovesFailoversKillsFreezesAndPubSubKills() throws Exception {
		Set<Transition> selected = selectedTransitions();
		this.transitions = EnumSet.copyOf(selected);
		Assumptions.assumeTrue(this.transitions.stream().anyMatch(Transition::onCluster),
				"no selected transition applies to a Cluster: " + selected);
		RedisCluster cluster = RedisCluster.start();
		this.resources.add(cluster);
		if (Boolean.getBoolean("redislock.chaos.monitor")) {
			for (int n = 0; n < cluster.nodes().size(); n++) {
				Process monitor = new ProcessBuilder("redis-cli", "-p", String.valueOf(cluster.nodes().get(n).port()),
						"monitor")
					.redirectOutput(new java.io.File("target/chaos-monitor-" + n + ".txt"))
					.start();
				this.resources.add(monitor::destroy);
			}
		}
		// Two locks on each master, of different kinds, each lock's slot its own.
		List<LockSpec> specs = new ArrayList<>();
		Kind[] kinds = { Kind.EXCLUSIVE, Kind.SEMAPHORE, Kind.READ_WRITE, Kind.READ_WRITE, Kind.EXCLUSIVE,
				Kind.SEMAPHORE };
		Set<Integer> slots = new LinkedHashSet<>();
		for (Kind kind : kinds) {
			String name;
			do {
				name = cluster.lockName("chaos-" + kind.name().toLowerCase(Locale.ROOT) + "-" + UUID.randomUUID());
			}
			while (!slots.add(ClusterSlotHashUtil.calculateSlot(name)));
			specs.add(new LockSpec(name, kind, ClusterSlotHashUtil.calculateSlot(name), RedisCluster.masterOf(name)));
		}
		this.locks = specs;
		// A killed master loses the writes its replica had not received: with replica
		// acknowledgement, every acquisition that returned is on the replica too, so the
		// promise (no two holders) holds across the kill; see safetyHolds for the
		// renewals, which are not acknowledged.
		boolean acknowledged = this.transitions.contains(Transition.KILL_MASTER);
		for (int i = 0; i < 2; i++) {
			LockSettings settings = LockSettings.DEFAULTS.withLeaseTime(WATCHDOG_LEASES[i]);
			if (acknowledged) {
				settings = settings.withReplicaAcknowledgement(1, Duration.ofMillis(500));
			}
			addInstance(cluster.connectionFactory(COMMAND_TIMEOUT, Duration.ofSeconds(1)), settings);
		}
		run("cluster" + (acknowledged ? ", replica-acknowledged" : ""), new ClusterChaos(cluster));
	}

	@Test
	void oneServerThroughFreezesAndPubSubKills() throws Exception {
		Set<Transition> selected = selectedTransitions();
		this.transitions = EnumSet.copyOf(selected);
		this.transitions.removeIf((transition) -> !transition.onOneServer());
		Assumptions.assumeTrue(!this.transitions.isEmpty(),
				"no selected transition applies to one server: " + selected);
		LocalRedisServer server = LocalRedisServer.start();
		this.resources.add(server);
		List<LockSpec> specs = new ArrayList<>();
		for (Kind kind : new Kind[] { Kind.EXCLUSIVE, Kind.SEMAPHORE, Kind.READ_WRITE, Kind.READ_WRITE, Kind.EXCLUSIVE,
				Kind.SEMAPHORE }) {
			specs.add(new LockSpec("chaos-" + kind.name().toLowerCase(Locale.ROOT) + "-" + UUID.randomUUID(), kind, 0,
					0));
		}
		this.locks = specs;
		for (int i = 0; i < 2; i++) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()),
					LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
			factory.afterPropertiesSet();
			factory.start();
			this.resources.add(factory::destroy);
			addInstance(factory, LockSettings.DEFAULTS.withLeaseTime(WATCHDOG_LEASES[i]));
		}
		run("one server", new ServerChaos(server));
	}

	private static Set<Transition> selectedTransitions() {
		String property = System.getProperty("redislock.chaos.transitions");
		if (property == null || property.isBlank()) {
			return EnumSet.allOf(Transition.class);
		}
		Set<Transition> selected = EnumSet.noneOf(Transition.class);
		for (String name : property.split(",")) {
			selected.add(Arrays.stream(Transition.values())
				.filter((transition) -> transition.id.equals(name.trim()))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException("Unknown transition '" + name + "', known: "
						+ Arrays.stream(Transition.values()).map((t) -> t.id).toList())));
		}
		return selected;
	}

	private void addInstance(RedisConnectionFactory factory, LockSettings settings) {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(factory, settings);
		int instance = this.instances.size();
		template.setLockLostListener((event) -> this.lostEvents.put(event.getLockName() + "#" + event.getFencingToken(),
				"instance-" + instance + " at " + LockHistory.nowMicros()));
		this.instances.add(template);
	}

	private void run(String mode, Chaos chaos) throws Exception {
		String fixedSeed = System.getProperty("redislock.chaos.seed");
		long seed = (fixedSeed != null) ? Long.parseLong(fixedSeed) : new Random().nextLong();
		System.out.println("TransitionChaosTests (" + mode + "): seed " + seed + " (replay with -Dredislock.chaos.seed="
				+ seed + "), transitions " + this.transitions.stream().map((t) -> t.id).toList() + ", locks "
				+ this.locks);
		for (int i = 0; i < this.waiters.length; i++) {
			this.waiters[i] = new Waiter();
		}
		for (Transition transition : Transition.values()) {
			this.performed.put(transition, new AtomicInteger());
		}
		warmUp();
		List<LockSpec> pairLocks = new ArrayList<>(
				this.locks.stream().filter((spec) -> spec.kind() != Kind.SEMAPHORE).toList());
		java.util.Collections.shuffle(pairLocks, new Random(seed));
		this.pairLocks = pairLocks;
		long started = System.nanoTime();
		this.started = started;
		this.startedMicros = LockHistory.nowMicros();
		long end = started + CHAOS.toNanos();
		ExecutorService threads = Executors.newFixedThreadPool(this.waiters.length + 2);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int w = 0; w < this.waiters.length; w++) {
				int worker = w;
				DefaultRedisLockTemplate instance = this.instances.get(w % 2);
				Random random = new Random(seed + w);
				String client = "instance-" + (w % 2) + "/thread-" + w;
				work.add(threads.submit(() -> {
					while (System.nanoTime() < end) {
						operate(instance, worker, client, random);
					}
					return null;
				}));
			}
			Random chaosRandom = new Random(seed - 1);
			Future<?> chaosThread = threads.submit(() -> {
				chaos.run(chaosRandom, end - TimeUnit.SECONDS.toNanos(4));
				return null;
			});
			if (this.transitions.contains(Transition.INTERRUPT)) {
				Random interrupts = new Random(seed - 2);
				work.add(threads.submit(() -> {
					while (System.nanoTime() < end) {
						LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100 + interrupts.nextInt(300)));
						// One of the workers waiting now, if any.
						int first = interrupts.nextInt(this.waiters.length);
						for (int i = 0; i < this.waiters.length; i++) {
							if (this.waiters[(first + i) % this.waiters.length].interrupt()) {
								this.performed.get(Transition.INTERRUPT).incrementAndGet();
								break;
							}
						}
					}
					return null;
				}));
			}
			chaosThread.get(5, TimeUnit.MINUTES);
			for (Future<?> future : work) {
				future.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
			chaos.heal();
		}
		long ran = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		List<String> leftOver = leftOver();
		System.out.println("TransitionChaosTests (" + mode + "): ran " + ran + " ms; " + this.holds.size() + " holds, "
				+ this.waits.size() + " waits, transitions " + this.performed + ", outages " + this.outages.size()
				+ ", lost-lock events " + this.lostEvents.size());
		// For reading a violation: the acquisitions that failed (their scripts may
		// still have run in Redis), in run time.
		for (HoldRecord hold : this.holds) {
			if (hold.token() < 0) {
				System.out.println("TransitionChaosTests: at " + (hold.sent() - this.startedMicros) / 1000 + "-"
						+ (hold.returned() - this.startedMicros) / 1000 + " ms of the run, " + hold.client() + " "
						+ hold.what() + " on '" + hold.spec().name() + "': " + hold.release());
			}
		}
		List<String> livenessViolations = livenessHistory()
			.violations(TimeUnit.MILLISECONDS.toMicros(LIVENESS_BOUND_MILLIS));
		for (String dump : livenessViolations.stream()
			.map((v) -> v.replaceAll("^lock '([^']+)'.*$", "$1"))
			.distinct()
			.toList()) {
			for (HoldRecord hold : this.holds) {
				if (hold.spec().name().startsWith(dump)) {
					long z = this.startedMicros;
					System.out
						.println("DUMP hold " + hold.client() + " " + hold.what() + " token " + hold.token() + " sent "
								+ (hold.sent() - z) / 1000 + " returned " + (hold.returned() - z) / 1000 + " confirmed "
								+ (hold.lastConfirmed() - z) / 1000 + " releasing " + (hold.releasing() - z) / 1000
								+ " released " + (hold.released() - z) / 1000 + " : " + hold.release());
				}
			}
			for (WaitRecord wait : this.waits) {
				if (wait.lock().startsWith(dump)) {
					System.out.println("DUMP wait " + wait.client() + " " + (wait.from() - this.startedMicros) / 1000
							+ "-" + (wait.to() - this.startedMicros) / 1000 + " " + wait.outcome());
				}
			}
		}
		for (Outage outage : this.outages) {
			System.out.println("TransitionChaosTests: at " + (outage.from() - this.startedMicros) / 1000 + "-"
					+ (outage.to() - this.startedMicros) / 1000 + " ms of the run, '" + outage.lock()
					+ "' unavailable: " + outage.why());
		}
		// Every check, so that one run tells all it found.
		SoftAssertions checks = new SoftAssertions();
		checks.assertThat(first(safetyHistory().violations())).as("safety (" + mode + "), seed " + seed).isEmpty();
		checks.assertThat(first(healthyHoldsLost()))
			.as("holds of healthy locks lost (" + mode + "), seed " + seed)
			.isEmpty();
		checks.assertThat(first(livenessViolations)).as("liveness (" + mode + "), seed " + seed).isEmpty();
		checks.assertThat(leftOver).as("holds left over after the run (" + mode + "), seed " + seed).isEmpty();
		// Not empty: something happened, and what was selected did happen.
		checks.assertThat(this.holds.size()).as("holds recorded").isGreaterThan(50);
		checks.assertThat(this.waits.size()).as("waits recorded").isGreaterThan(20);
		for (Transition transition : this.transitions) {
			checks.assertThat(this.performed.get(transition).get())
				.as(transition.id + " performed (seed " + seed + ")")
				.isPositive();
		}
		checks.assertAll();
	}

	private static List<String> first(List<String> violations) {
		if (violations.size() <= 10) {
			return violations;
		}
		List<String> first = new ArrayList<>(violations.subList(0, 10));
		first.add("... and " + (violations.size() - 10) + " more");
		return first;
	}

	/**
	 * Take and release every lock once from every instance, so that each client knows the
	 * topology and has its connections before the chaos starts.
	 */
	private void warmUp() {
		for (DefaultRedisLockTemplate instance : this.instances) {
			for (LockSpec spec : this.locks) {
				awaitCondition("warm-up of " + spec.name(), Duration.ofSeconds(30), () -> {
					try {
						if (spec.kind() == Kind.SEMAPHORE) {
							Optional<SemaphorePermit> permit = instance.getSemaphore(spec.name(), PERMITS)
								.tryAcquire(Duration.ofSeconds(1), null);
							permit.ifPresent(SemaphorePermit::close);
							return permit.isPresent();
						}
						RedisLock lock = (spec.kind() == Kind.EXCLUSIVE) ? instance.getLock(spec.name())
								: instance.getReadWriteLock(spec.name()).writeLock();
						if (lock.tryLock(Duration.ofSeconds(1), null)) {
							lock.unlock();
							return true;
						}
						return false;
					}
					catch (RuntimeException ex) {
						return false;
					}
				});
			}
		}
	}

	private static void awaitCondition(String what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}
	}

	/**
	 * One operation of one worker: take a hold of a random lock in a random way, work
	 * under it while checking it is still held, release it; record it all.
	 */
	private void operate(DefaultRedisLockTemplate instance, int worker, String client, Random random) {
		Thread.interrupted();
		// The first two workers, one on each instance, hand one lock (exclusive or a
		// write side, a new one every few seconds) to each other over and over, with
		// long fixed leases and nobody else of their instance waiting: each hand-off
		// needs the release message to cross instances, and the waiting instance keeps
		// listening on the lock's channel across whatever transition comes. The others
		// do anything.
		boolean pair = worker < 2;
		LockSpec spec = pair ? pairLock() : this.locks.get(random.nextInt(this.locks.size()));
		boolean write = pair || spec.kind() == Kind.EXCLUSIVE
				|| (spec.kind() == Kind.READ_WRITE && random.nextBoolean());
		int leaseKind = random.nextInt(10);
		Duration lease = pair ? LONG_LEASE : (leaseKind < 4) ? null : (leaseKind < 8) ? LONG_LEASE : SHORT_LEASE;
		long holdAtLeastMillis = 0;
		long workMillis;
		if (lease == SHORT_LEASE) {
			workMillis = SHORT_LEASE.toMillis() + 200 + random.nextInt(300);
		}
		else if (spec.kind() != Kind.SEMAPHORE && this.transitions.contains(Transition.HOLD_AT_LEAST)
				&& random.nextInt(pair ? 3 : 4) == 0) {
			holdAtLeastMillis = 800 + random.nextInt(700);
			workMillis = random.nextInt(300);
			if (pair && random.nextBoolean()) {
				// Renewed by the watchdog until the release: the release must not be
				// stretched back to a whole lease.
				lease = null;
			}
		}
		else {
			workMillis = pair ? 200 + random.nextInt(400) : 200 + random.nextInt(1300);
		}
		boolean async = random.nextInt(4) == 0;
		int waitKind = pair ? 9 : random.nextInt(10);
		Duration wait = (waitKind == 0) ? Duration.ZERO : (waitKind == 1) ? Duration.ofMillis(3)
				: pair ? Duration.ofSeconds(5) : Duration.ofMillis(2500 + random.nextInt(3000));
		boolean interruptible = !pair && wait.toMillis() > 100 && random.nextBoolean();
		String what = spec.kind().describe(write) + ", lease "
				+ ((lease != null) ? lease.toMillis() + "ms"
						: "watchdog " + WATCHDOG_LEASES[worker % 2].toMillis() + "ms")
				+ ((holdAtLeastMillis > 0) ? ", holdAtLeast " + holdAtLeastMillis + "ms" : "")
				+ (async ? ", async" : "") + ", work " + workMillis + "ms";
		Held held;
		long sent = LockHistory.nowMicros();
		String outcome;
		Waiter waiter = this.waiters[worker];
		try {
			if (interruptible) {
				waiter.waiting(Thread.currentThread());
			}
			try {
				held = acquire(instance, spec, write, lease, holdAtLeastMillis, async, wait, waiter, interruptible);
			}
			finally {
				waiter.done();
			}
			outcome = (held != null) ? "acquired" : Thread.interrupted() ? "interrupted" : "timeout";
		}
		catch (CancellationException ex) {
			held = null;
			outcome = "cancelled";
		}
		catch (RuntimeException ex) {
			held = null;
			outcome = "failed: " + ex;
		}
		long returned = LockHistory.nowMicros();
		Thread.interrupted();
		if (wait.toMillis() >= 100) {
			this.waits.add(new WaitRecord(client + " (" + what + ")", spec.name(), sent, returned, outcome));
		}
		if (held == null) {
			if (outcome.startsWith("failed")) {
				this.holds.add(HoldRecord.failure(client, spec, what, lease, WATCHDOG_LEASES[worker % 2], sent,
						returned, outcome));
			}
			return;
		}
		if (holdAtLeastMillis > 0) {
			this.performed.get(Transition.HOLD_AT_LEAST).incrementAndGet();
		}
		long token = held.token();
		long lastConfirmed = returned;
		boolean lostSeen = false;
		long workEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(workMillis);
		long left;
		while ((left = workEnd - System.nanoTime()) > 0) {
			LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
			long checking = LockHistory.nowMicros();
			if (!held.isHeld()) {
				lostSeen = true;
				break;
			}
			lastConfirmed = checking;
		}
		if (!lostSeen) {
			long checking = LockHistory.nowMicros();
			if (held.isHeld()) {
				lastConfirmed = checking;
			}
			else {
				lostSeen = true;
			}
		}
		long releasing = LockHistory.nowMicros();
		String release;
		try {
			held.release();
			release = "released";
		}
		catch (LockLostException ex) {
			release = "lost";
		}
		catch (RuntimeException ex) {
			release = "failed: " + ex;
		}
		long released = LockHistory.nowMicros();
		Thread.interrupted();
		this.holds.add(new HoldRecord(client, spec, write, what, lease, holdAtLeastMillis, WATCHDOG_LEASES[worker % 2],
				token, sent, returned, lastConfirmed, lostSeen, releasing, released, release));
		if (pair && holdAtLeastMillis > 0) {
			// Stand back after a minimum hold, as a scheduled job does until its next
			// tick: its partner, waiting on the other instance, must take the lock when
			// the minimum hold ends, woken by Redis' news of it, not by its own re-try
			// when the lease it last saw would end. (Staying, it would take the lock
			// back itself and hide a partner left sleeping.)
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(4500));
		}
	}

	/**
	 * Return the lock the pair of workers hands to each other now: each of the exclusive
	 * locks and write sides in turn, for {@value #PAIR_SLICE_MILLIS} ms each.
	 */
	private LockSpec pairLock() {
		long slice = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.started) / PAIR_SLICE_MILLIS;
		return this.pairLocks.get((int) (slice % this.pairLocks.size()));
	}

	/**
	 * Acquire as chosen.
	 * @return the hold, or {@code null} when the wait ran out or was interrupted
	 */
	private Held acquire(DefaultRedisLockTemplate instance, LockSpec spec, boolean write, Duration lease,
			long holdAtLeastMillis, boolean async, Duration wait, Waiter waiter, boolean interruptible) {
		RedisLock lock;
		if (spec.kind() == Kind.SEMAPHORE) {
			RedisSemaphore semaphore = instance.getSemaphore(spec.name(), PERMITS);
			if (!async) {
				Optional<SemaphorePermit> permit = semaphore.tryAcquire(wait, lease);
				return permit.map((p) -> new Held(p.fencingToken(), p::isHeld, p::close)).orElse(null);
			}
			lock = instance.semaphoreLock(semaphore);
		}
		else {
			lock = (spec.kind() == Kind.EXCLUSIVE) ? instance.getLock(spec.name())
					: write ? instance.getReadWriteLock(spec.name()).writeLock()
							: instance.getReadWriteLock(spec.name()).readLock();
		}
		if (holdAtLeastMillis > 0) {
			lock = lock.withHoldAtLeast(Duration.ofMillis(holdAtLeastMillis));
		}
		if (async) {
			CompletableFuture<Optional<AsyncHold>> acquisition = instance.acquireAsync(lock, wait, lease);
			if (interruptible) {
				waiter.cancellable(acquisition);
			}
			AsyncHold hold;
			try {
				hold = acquisition.get(wait.toMillis() + 30_000, TimeUnit.MILLISECONDS).orElse(null);
			}
			catch (InterruptedException ex) {
				acquisition.cancel(false);
				Thread.currentThread().interrupt();
				return null;
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException("async acquisition failed: " + ex.getCause(), ex.getCause());
			}
			catch (java.util.concurrent.TimeoutException ex) {
				acquisition.cancel(false);
				throw new IllegalStateException("async acquisition did not complete within its wait + 30 s");
			}
			if (hold == null) {
				return null;
			}
			return new Held(hold.fencingToken(), hold::isHeld, () -> {
				try {
					hold.releaseAsync().get(30, TimeUnit.SECONDS);
				}
				catch (ExecutionException ex) {
					if (ex.getCause() instanceof RuntimeException runtime) {
						throw runtime;
					}
					throw new IllegalStateException(ex.getCause());
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
		}
		RedisLock taken = lock;
		if (!lock.tryLock(wait, lease)) {
			return null;
		}
		return new Held(taken.fencingToken(), taken::isHeldByCurrentThread, taken::unlock);
	}

	/**
	 * The holds as the safety checker sees them. A watchdog hold whose master was killed
	 * while it was held is checked only up to the kill: renewals are not acknowledged by
	 * the replicas (only acquisitions are), so the lease the replica has may end up to
	 * one renewal period before the holder's own deadline; after a takeover the library
	 * promises that the hold was not lost unseen to its acquisition, not that its last
	 * renewal survived. Fixed leases are set by the acquisition and so survive whole.
	 */
	private LockHistory safetyHistory() {
		LockHistory history = new LockHistory();
		for (HoldRecord hold : this.holds) {
			if (hold.token() < 0) {
				continue;
			}
			long until = Math.max(hold.returned(), hold.lastConfirmed());
			if (hold.lease() == null) {
				for (Touch kill : this.kills) {
					if (kill.locks().contains(hold.spec().name()) && kill.from() > hold.returned()
							&& kill.from() < until) {
						until = kill.from();
					}
				}
			}
			switch (hold.spec().kind()) {
				case SEMAPHORE -> history.heldPermit(hold.client(), hold.spec().name(), PERMITS, hold.token(),
						hold.sent(), hold.returned(), until);
				case READ_WRITE -> {
					if (hold.write()) {
						history.held(hold.client(), hold.spec().name(), hold.token(), hold.returned(), until);
					}
					else {
						history.heldShared(hold.client(), hold.spec().name(), hold.token(), hold.returned(), until);
					}
				}
				case EXCLUSIVE -> history.held(hold.client(), hold.spec().name(), hold.token(), hold.returned(), until);
			}
		}
		return history;
	}

	/**
	 * The holds and waits as the liveness checker sees them: each hold from when Redis
	 * may have granted it to when Redis surely dropped it, and each outage of a lock's
	 * node as a time it was not free.
	 */
	private LivenessHistory livenessHistory() {
		LivenessHistory history = new LivenessHistory();
		history.timesFrom(this.startedMicros);
		for (LockSpec spec : this.locks) {
			if (spec.kind() == Kind.SEMAPHORE) {
				history.capacity(spec.name(), PERMITS);
			}
		}
		for (HoldRecord hold : this.holds) {
			if (hold.token() < 0) {
				// An attempt that got no answer may have run in Redis (when its node came
				// back); the engine undoes it, owner-checked, and when the undo does not
				// get through either, nobody renews it: it lasts one lease at most.
				long answered = hold.returned();
				for (Outage outage : this.outages) {
					if (outage.lock().equals(hold.spec().name()) && outage.from() < hold.returned()
							&& outage.to() > hold.sent()) {
						answered = Math.max(answered, outage.to());
					}
				}
				Duration lease = (hold.lease() != null) ? hold.lease() : hold.watchdogLease();
				history.held(hold.spec().name(), hold.sent(), answered + lease.toNanos() / 1000 + MARGIN_MICROS,
						hold.client() + " " + hold.what() + ", acquisition " + hold.release());
				continue;
			}
			// Granted at the latest attempt: at most a reply's way before it returned.
			long from = Math.max(hold.sent(), hold.returned() - 100_000);
			long until;
			if (hold.release().equals("released")) {
				// Deleted by the release; a minimum hold keeps it until then, timed by
				// Redis from the acquisition.
				until = Math.max(hold.released(), hold.returned() + hold.holdAtLeastMillis() * 1000);
			}
			else {
				// Found lost, or the release failed: Redis may keep it until a lease
				// after the last renewal ran, and a renewal sent to a frozen node runs
				// when the node comes back. A failed release is sent again on every
				// watchdog tick (PendingReleases), so a fixed lease does not keep it
				// either once the node answers again.
				long lastRenewal = hold.released();
				for (Outage outage : this.outages) {
					if (outage.lock().equals(hold.spec().name()) && outage.from() < hold.released()
							&& outage.to() > hold.sent()) {
						lastRenewal = Math.max(lastRenewal, outage.to());
					}
				}
				until = lastRenewal + hold.watchdogLease().toNanos() / 1000;
			}
			if (hold.lease() != null) {
				until = Math.min(until, hold.returned() + hold.lease().toNanos() / 1000);
			}
			history.held(hold.spec().name(), from, until + MARGIN_MICROS, hold.client() + " " + hold.what() + ", token "
					+ hold.token() + ", " + hold.release() + ((hold.lostSeen()) ? " (seen lost)" : ""));
		}
		for (Outage outage : this.outages) {
			history.unavailable(outage.lock(), outage.from(), outage.to(), outage.why());
		}
		for (Touch touch : this.touches) {
			for (String lock : touch.locks()) {
				history.transition(lock, touch.from(), touch.to(), touch.what());
			}
		}
		for (Touch kill : this.pubSubKills) {
			history.transition("*", kill.from(), kill.to(), kill.what());
		}
		for (WaitRecord wait : this.waits) {
			history.waited(wait.client(), wait.lock(), wait.from(), wait.to(), wait.outcome());
		}
		return history;
	}

	/**
	 * Holds (and acquisitions) of locks that no transition touched, and that were lost or
	 * failed all the same.
	 */
	private List<String> healthyHoldsLost() {
		List<String> violations = new ArrayList<>();
		for (HoldRecord hold : this.holds) {
			long to = Math.max(hold.released(), hold.returned());
			Touch touch = touching(hold.spec().name(), hold.sent(), to);
			if (touch != null) {
				continue;
			}
			if (hold.token() < 0) {
				violations.add("acquisition failed on healthy lock '" + hold.spec().name() + "': " + hold.client() + " "
						+ hold.what() + " " + hold.release() + " after " + (hold.returned() - hold.sent()) / 1000
						+ " ms");
				continue;
			}
			if (hold.lease() == SHORT_LEASE) {
				// Its fixed lease ends before its work: lost by design.
				continue;
			}
			String event = this.lostEvents.get(hold.spec().name() + "#" + hold.token());
			if (hold.lostSeen() || !hold.release().equals("released") || event != null) {
				violations
					.add("hold of healthy lock '" + hold.spec().name() + "' lost: " + hold.client() + " " + hold.what()
							+ ", token " + hold.token() + ", held " + (hold.lastConfirmed() - hold.returned()) / 1000
							+ " ms" + (hold.lostSeen() ? ", seen lost while held" : "") + ", release " + hold.release()
							+ ((event != null) ? ", lock-lost event from " + event : "") + "; last transition before: "
							+ lastTransitionBefore(hold.sent()));
			}
		}
		return violations;
	}

	private Touch touching(String lock, long from, long to) {
		for (Touch touch : this.touches) {
			if (touch.locks().contains(lock) && touch.from() < to && touch.to() + SETTLE_MICROS > from) {
				return touch;
			}
		}
		return null;
	}

	private String lastTransitionBefore(long micros) {
		Touch last = null;
		for (Touch touch : this.touches) {
			if (touch.from() < micros && (last == null || touch.from() > last.from())) {
				last = touch;
			}
		}
		return (last != null)
				? last.what() + " of " + last.locks() + ", ended " + (micros - last.to()) / 1000 + " ms before"
				: "none";
	}

	/**
	 * Once the chaos is over and the workers are done, no instance holds anything, and
	 * every lock is free in Redis within the longest lease.
	 */
	private List<String> leftOver() {
		List<String> problems = new ArrayList<>();
		for (int i = 0; i < this.instances.size(); i++) {
			int active = this.instances.get(i).getActiveHoldCount();
			if (active != 0) {
				problems.add("instance-" + i + " still has " + active + " hold(s) after every worker released");
			}
		}
		DefaultRedisLockTemplate observer = this.instances.get(0);
		long deadline = System.nanoTime() + LONG_LEASE.plusSeconds(4).toNanos();
		for (LockSpec spec : this.locks) {
			BooleanSupplier free = () -> {
				try {
					return switch (spec.kind()) {
						case EXCLUSIVE -> !observer.getLock(spec.name()).isLocked();
						case READ_WRITE -> !observer.getReadWriteLock(spec.name()).writeLock().isLocked()
								&& !observer.getReadWriteLock(spec.name()).readLock().isLocked();
						case SEMAPHORE -> observer.getSemaphore(spec.name(), PERMITS).availablePermits() == PERMITS;
					};
				}
				catch (RuntimeException ex) {
					return false;
				}
			};
			while (!free.getAsBoolean()) {
				if (System.nanoTime() > deadline) {
					problems.add(spec + " still taken " + LONG_LEASE.plusSeconds(4) + " after the run");
					break;
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
			}
		}
		return problems;
	}

	private void touched(Transition transition, Set<String> locks, long from, long to, String what) {
		this.touches.add(new Touch(transition, locks, from, to, what));
		this.performed.get(transition).incrementAndGet();
		System.out.println("TransitionChaosTests: " + what + " took " + (to - from) / 1000 + " ms");
	}

	private void unavailable(Set<String> locks, long from, long to, String why) {
		for (String lock : locks) {
			this.outages.add(new Outage(lock, from, to, why));
		}
	}

	private static void pause(Random random, int minMillis, int maxMillis) {
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(minMillis + random.nextInt(maxMillis - minMillis)));
	}

	/** Transitions of a Cluster. */
	private final class ClusterChaos implements Chaos {

		private final RedisCluster cluster;

		/** Shard (0..2) to its master and replica node. */
		private final int[] master = { 0, 1, 2 };

		private final int[] replica = { 3, 4, 5 };

		/** Lock name to the shard serving its slot now. */
		private final Map<String, Integer> shardOf = new HashMap<>();

		private volatile int frozen = -1;

		/** When each shard last changed master (nanoTime), or 0. */
		private final long[] changed = new long[3];

		ClusterChaos(RedisCluster cluster) {
			this.cluster = cluster;
			for (LockSpec spec : TransitionChaosTests.this.locks) {
				this.shardOf.put(spec.name(), spec.master());
			}
		}

		private Set<String> locksOn(int shard) {
			return this.shardOf.entrySet()
				.stream()
				.filter((entry) -> entry.getValue() == shard)
				.map(Map.Entry::getKey)
				.collect(Collectors.toCollection(LinkedHashSet::new));
		}

		@Override
		public void run(Random random, long end) {
			List<Transition> choices = TransitionChaosTests.this.transitions.stream()
				.filter(Transition::onCluster)
				.filter((transition) -> transition.chaos)
				.toList();
			if (choices.isEmpty()) {
				return;
			}
			// Every selected transition once in a random order first, then at random.
			List<Transition> firstRound = new ArrayList<>(choices);
			java.util.Collections.shuffle(firstRound, random);
			while (System.nanoTime() < end) {
				pause(random, 500, 2000);
				if (System.nanoTime() >= end) {
					break;
				}
				Transition transition = !firstRound.isEmpty() ? firstRound.remove(0)
						: choices.get(random.nextInt(choices.size()));
				// Half the time the shard of the lock the pair of workers hands over now.
				int shard = random.nextBoolean() ? this.shardOf.get(pairLock().name()) : random.nextInt(3);
				if ((transition == Transition.FAILOVER || transition == Transition.KILL_MASTER)
						&& this.changed[shard] != 0
						&& System.nanoTime() - this.changed[shard] < MASTERS_VOTE_AGAIN_NANOS) {
					// The masters would not vote for a replica of that shard yet, and a
					// manual failover would only pause its master again and again.
					shard = -1;
					for (int candidate = 0; candidate < 3; candidate++) {
						if (this.changed[candidate] == 0
								|| System.nanoTime() - this.changed[candidate] >= MASTERS_VOTE_AGAIN_NANOS) {
							shard = candidate;
						}
					}
					if (shard < 0) {
						continue;
					}
				}
				switch (transition) {
					case SLOT_MOVE -> moveAndBack(random);
					case FAILOVER -> failover(shard);
					case KILL_MASTER -> killMaster(shard);
					case FREEZE -> freeze(shard, random);
					case PUBSUB_KILL -> killPubSub(random);
					default -> throw new IllegalStateException(transition.id);
				}
			}
		}

		private void moveAndBack(Random random) {
			List<LockSpec> specs = TransitionChaosTests.this.locks;
			// Half the time the lock the pair of workers hands over now.
			LockSpec spec = random.nextBoolean() ? pairLock() : specs.get(random.nextInt(specs.size()));
			int home = this.shardOf.get(spec.name());
			int away = (home + 1 + random.nextInt(2)) % 3;
			long from = LockHistory.nowMicros();
			this.cluster.moveSlotAmong(spec.slot(), this.master[home], this.master[away], this.master);
			this.shardOf.put(spec.name(), away);
			pause(random, 300, 2000);
			this.cluster.moveSlotAmong(spec.slot(), this.master[away], this.master[home], this.master);
			this.shardOf.put(spec.name(), home);
			long to = LockHistory.nowMicros();
			touched(Transition.SLOT_MOVE, Set.of(spec.name()), from, to,
					"slot move of " + spec.slot() + " to shard " + away + " and back");
		}

		private void failover(int shard) {
			Set<String> locks = locksOn(shard);
			long from = LockHistory.nowMicros();
			this.cluster.failover(this.replica[shard], this.master[shard]);
			int old = this.master[shard];
			this.master[shard] = this.replica[shard];
			this.replica[shard] = old;
			long to = LockHistory.nowMicros();
			this.changed[shard] = System.nanoTime();
			// During a manual failover the master accepts no writes until its replica
			// took over (for up to 5 s per attempt).
			unavailable(locks, from, to, "coordinated failover of shard " + shard + ": its master paused writes");
			touched(Transition.FAILOVER, locks, from, to,
					"coordinated failover of shard " + shard + " to node " + this.master[shard]);
		}

		private void killMaster(int shard) {
			Set<String> locks = locksOn(shard);
			int killed = this.master[shard];
			long from = LockHistory.nowMicros();
			this.cluster.kill(killed);
			this.cluster.takeOver(this.replica[shard]);
			long takenOver = LockHistory.nowMicros();
			this.master[shard] = this.replica[shard];
			this.replica[shard] = killed;
			this.changed[shard] = System.nanoTime();
			TransitionChaosTests.this.kills.add(new Touch(Transition.KILL_MASTER, locks, from, takenOver, "kill"));
			this.cluster.rejoinAsReplica(killed, this.master[shard]);
			long rejoined = LockHistory.nowMicros();
			// Unreachable until the replica took over; with replica acknowledgement
			// (always on with kills) no acquisition can be confirmed until the shard
			// has a replica again.
			unavailable(locks, from, rejoined, "master node " + killed + " of shard " + shard
					+ " killed, taken over by node " + this.master[shard] + " and re-joined as its replica");
			touched(Transition.KILL_MASTER, locks, from, rejoined, "kill of master node " + killed + " of shard "
					+ shard + " (taken over after " + (takenOver - from) / 1000 + " ms)");
		}

		private void freeze(int shard, Random random) {
			Set<String> locks = locksOn(shard);
			int node = this.master[shard];
			long from = LockHistory.nowMicros();
			this.frozen = node;
			this.cluster.nodes().get(node).pause();
			try {
				// Below the cluster node timeout (5 s): no failover.
				pause(random, 2000, 3500);
			}
			finally {
				this.cluster.nodes().get(node).resume();
				this.frozen = -1;
			}
			long to = LockHistory.nowMicros();
			unavailable(locks, from, to, "master node " + node + " of shard " + shard + " frozen");
			touched(Transition.FREEZE, locks, from, to, "freeze of master node " + node + " of shard " + shard);
		}

		/**
		 * Kill the pub/sub connections on every master again and again for a moment (a
		 * flapping proxy): release messages published while a connection is down are
		 * lost, so waiters must find out otherwise.
		 */
		private void killPubSub(Random random) {
			long from = LockHistory.nowMicros();
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300 + random.nextInt(900));
			long killed = 0;
			do {
				for (int node : this.master) {
					killed += TransitionChaosTests.this.pubSubKiller.kill(this.cluster.nodes().get(node));
				}
				pause(random, 1, 5);
			}
			while (System.nanoTime() < until);
			TransitionChaosTests.this.pubSubKills.add(new Touch(Transition.PUBSUB_KILL, Set.of(), from,
					LockHistory.nowMicros(), "pub/sub connections killed (" + killed + ")"));
			TransitionChaosTests.this.performed.get(Transition.PUBSUB_KILL).incrementAndGet();
		}

		@Override
		public void heal() {
			int node = this.frozen;
			if (node >= 0) {
				this.cluster.nodes().get(node).resume();
			}
		}

	}

	/** Transitions of one server. */
	private final class ServerChaos implements Chaos {

		private final LocalRedisServer server;

		private volatile boolean frozen;

		ServerChaos(LocalRedisServer server) {
			this.server = server;
		}

		@Override
		public void run(Random random, long end) {
			List<Transition> choices = TransitionChaosTests.this.transitions.stream()
				.filter(Transition::onOneServer)
				.filter((transition) -> transition.chaos)
				.toList();
			if (choices.isEmpty()) {
				return;
			}
			Set<String> all = TransitionChaosTests.this.locks.stream().map(LockSpec::name).collect(Collectors.toSet());
			while (System.nanoTime() < end) {
				pause(random, 500, 2000);
				Transition transition = choices.get(random.nextInt(choices.size()));
				if (transition == Transition.FREEZE) {
					long from = LockHistory.nowMicros();
					this.frozen = true;
					this.server.pause();
					try {
						// Below the shorter watchdog lease.
						pause(random, 300, 800);
					}
					finally {
						this.server.resume();
						this.frozen = false;
					}
					long to = LockHistory.nowMicros();
					unavailable(all, from, to, "server frozen");
					touched(Transition.FREEZE, all, from, to, "freeze of the server");
				}
				else if (transition == Transition.PUBSUB_KILL) {
					// Again and again for a moment, as on the Cluster.
					long from = LockHistory.nowMicros();
					long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300 + random.nextInt(900));
					long killed = 0;
					do {
						killed += TransitionChaosTests.this.pubSubKiller.kill(this.server);
						pause(random, 1, 5);
					}
					while (System.nanoTime() < until);
					TransitionChaosTests.this.pubSubKills.add(new Touch(Transition.PUBSUB_KILL, Set.of(), from,
							LockHistory.nowMicros(), "pub/sub connections killed (" + killed + ")"));
					TransitionChaosTests.this.performed.get(Transition.PUBSUB_KILL).incrementAndGet();
				}
			}
		}

		@Override
		public void heal() {
			if (this.frozen) {
				this.server.resume();
			}
		}

	}

	/**
	 * Kills the pub/sub connections of a node ({@code CLIENT KILL TYPE pubsub}) on a
	 * connection kept open, so that kills can follow each other within milliseconds.
	 */
	private static final class PubSubKiller implements AutoCloseable {

		private final io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();

		private final Map<Integer, io.lettuce.core.api.StatefulRedisConnection<String, String>> connections = new HashMap<>();

		synchronized long kill(LocalRedisServer node) {
			io.lettuce.core.api.StatefulRedisConnection<String, String> connection = this.connections.computeIfAbsent(
					node.port(), (port) -> this.client.connect(io.lettuce.core.RedisURI.create(node.host(), port)));
			return connection.sync().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
		}

		@Override
		public synchronized void close() {
			this.connections.values().forEach(io.lettuce.core.api.StatefulRedisConnection::close);
			this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}

	}

	private interface Chaos {

		/** Perform transitions at random until {@code end} (nanoTime). */
		void run(Random random, long end);

		/** Undo a transition cut short (resume a frozen node). */
		void heal();

	}

	/**
	 * A worker thread that may be interrupted (or its asynchronous acquisition cancelled)
	 * while it waits, and only then.
	 */
	private static final class Waiter {

		private Thread thread;

		private CompletableFuture<?> acquisition;

		synchronized void waiting(Thread thread) {
			this.thread = thread;
		}

		synchronized void cancellable(CompletableFuture<?> acquisition) {
			this.acquisition = acquisition;
			this.thread = null;
		}

		synchronized void done() {
			this.thread = null;
			this.acquisition = null;
		}

		synchronized boolean interrupt() {
			if (this.acquisition != null) {
				return this.acquisition.cancel(false);
			}
			if (this.thread != null) {
				this.thread.interrupt();
				return true;
			}
			return false;
		}

	}

	enum Transition {

		SLOT_MOVE("slot-move", true, false, true), FAILOVER("failover", true, false, true),
		KILL_MASTER("kill-master", true, false, true), FREEZE("freeze", true, true, true),
		PUBSUB_KILL("pubsub-kill", true, true, true), INTERRUPT("interrupt", true, true, false),
		HOLD_AT_LEAST("hold-at-least", true, true, false);

		final String id;

		private final boolean cluster;

		private final boolean oneServer;

		/** Done by the chaos thread (the others by the workers). */
		final boolean chaos;

		Transition(String id, boolean cluster, boolean oneServer, boolean chaos) {
			this.id = id;
			this.cluster = cluster;
			this.oneServer = oneServer;
			this.chaos = chaos;
		}

		boolean onCluster() {
			return this.cluster;
		}

		boolean onOneServer() {
			return this.oneServer;
		}

	}

	enum Kind {

		EXCLUSIVE, READ_WRITE, SEMAPHORE;

		String describe(boolean write) {
			return switch (this) {
				case EXCLUSIVE -> "exclusive";
				case READ_WRITE -> write ? "write" : "read";
				case SEMAPHORE -> "permit";
			};
		}

	}

	record LockSpec(String name, Kind kind, int slot, int master) {

		@Override
		public String toString() {
			return this.kind.name().toLowerCase(Locale.ROOT) + " '" + this.name + "' (slot " + this.slot + ", master "
					+ this.master + ")";
		}

	}

	/** A hold while it is held: its token, whether it is still held, its release. */
	private record Held(long token, BooleanSupplier held, Runnable releaser) {

		boolean isHeld() {
			return this.held.getAsBoolean();
		}

		void release() {
			this.releaser.run();
		}

	}

	/**
	 * A hold as it happened (times in wall-clock microseconds); a token below zero marks
	 * a failed acquisition.
	 */
	record HoldRecord(String client, LockSpec spec, boolean write, String what, Duration lease, long holdAtLeastMillis,
			Duration watchdogLease, long token, long sent, long returned, long lastConfirmed, boolean lostSeen,
			long releasing, long released, String release) {

		static HoldRecord failure(String client, LockSpec spec, String what, Duration lease, Duration watchdogLease,
				long sent, long returned, String outcome) {
			return new HoldRecord(client, spec, false, what, lease, 0, watchdogLease, -1, sent, returned, returned,
					false, returned, returned, outcome);
		}

	}

	record WaitRecord(String client, String lock, long from, long to, String outcome) {
	}

	/** A transition that touched some locks from {@code from} to {@code to}. */
	record Touch(Transition transition, Set<String> locks, long from, long to, String what) {
	}

	record Outage(String lock, long from, long to, String why) {
	}

}
