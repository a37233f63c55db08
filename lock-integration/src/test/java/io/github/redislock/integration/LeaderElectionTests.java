package io.github.redislock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader election with Spring Integration's own {@link LockRegistryLeaderInitiator},
 * unchanged, over {@link RedisLockRegistryAdapter}s of application instances of their own
 * (in this JVM, and in a JVM of its own for the leader that is killed or frozen): one
 * leader at a time with {@code OnGrantedEvent} and {@code OnRevokedEvent}; a leader whose
 * lock was deleted or expired steps down within one heartbeat; a leader that lost its
 * lock and leads again later releases it when it stops; a killed leader's lock passes on
 * within a lease; each leader reads its fencing token when granted. Both registry kinds:
 * renewed while held ({@code watchdog}) and with {@code expireAfter} ({@code fixed}); the
 * step-down tests also run on Spring Integration's own {@code RedisLockRegistry}, as a
 * control.
 * <p>
 * The step-down and fail-over times are printed (in the test's output file) as well as
 * bounded.
 */
@ExtendWith(RedisExtension.class)
class LeaderElectionTests {

	/** Spring Integration's default heartbeat, used unless a test says otherwise. */
	private static final long HEARTBEAT = LockRegistryLeaderInitiator.DEFAULT_HEART_BEAT_TIME;

	/**
	 * The kind of contender that runs on Spring Integration's own
	 * {@code RedisLockRegistry} (its {@code registryKey} too): the control, beside the
	 * adapter's two kinds.
	 */
	private static final String CONTROL = "control";

	/** What a loaded machine may add to a bound that the design sets. */
	private static final Duration MARGIN = Duration.ofMillis(1500);

	private final RedisServer server;

	private Instances instances;

	private String role;

	private final List<ChildJvm> children = new ArrayList<>();

	LeaderElectionTests(RedisServer server) {
		this.server = server;
	}

	@BeforeEach
	void open() {
		this.instances = new Instances(this.server);
		this.role = "leader-" + UUID.randomUUID();
	}

	@AfterEach
	void close() throws Exception {
		this.children.forEach(ChildJvm::close);
		this.instances.close();
	}

	@Test
	void oneLeaderAtATimeWithGrantedAndRevokedEventsAndIncreasingTokens() throws Exception {
		Contender first = contender("a", "watchdog", HEARTBEAT);
		Contender second = contender("b", "watchdog", HEARTBEAT);
		AtomicInteger bothLeading = new AtomicInteger();
		AtomicBoolean sampling = new AtomicBoolean(true);
		Thread sampler = new Thread(() -> {
			while (sampling.get()) {
				if (first.isLeader() && second.isLeader()) {
					bothLeading.incrementAndGet();
				}
				LockSupport.parkNanos(500_000);
			}
		});
		sampler.start();
		first.start();
		second.start();
		Contender leader = awaitLeader(first, second);
		for (int i = 0; i < 4; i++) {
			Contender follower = (leader == first) ? second : first;
			int granted = follower.grants();
			// As Spring Integration's own test does: the one that yields waits long
			// enough
			// before it asks again for the other to be elected.
			leader.initiator.setBusyWaitMillis(2000);
			follower.initiator.setBusyWaitMillis(LockRegistryLeaderInitiator.DEFAULT_BUSY_WAIT_TIME);
			leader.initiator.getContext().yield();
			await().atMost(Duration.ofSeconds(10)).until(() -> follower.grants() > granted);
			assertThat(leader.isLeader()).isFalse();
			leader = follower;
		}
		first.initiator.stop();
		second.initiator.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !first.isLeader() && !second.isLeader());
		sampling.set(false);
		sampler.join();
		assertThat(bothLeading.get()).as("samples with two leaders").isZero();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.instances.exists(this.role));

		List<AbstractLeaderEvent> events = new ArrayList<>(first.events);
		events.addAll(second.events);
		assertThat(events).allSatisfy((event) -> {
			assertThat(event.getRole()).isEqualTo(this.role);
			assertThat(event.getContext().getRole()).isEqualTo(this.role);
		});
		assertThat(first.events).hasAtLeastOneElementOfType(OnGrantedEvent.class)
			.hasAtLeastOneElementOfType(OnRevokedEvent.class);
		assertThat(second.events).hasAtLeastOneElementOfType(OnGrantedEvent.class)
			.hasAtLeastOneElementOfType(OnRevokedEvent.class);
		// Granted and revoked alternate for each contender, starting with granted.
		for (Contender contender : List.of(first, second)) {
			for (int i = 0; i < contender.events.size(); i++) {
				assertThat(contender.events.get(i))
					.isInstanceOf((i % 2 == 0) ? OnGrantedEvent.class : OnRevokedEvent.class);
			}
		}
		// Five leaderships, each with a larger fencing token than the one before.
		List<Long> tokens = new ArrayList<>(first.tokens);
		tokens.addAll(second.tokens);
		assertThat(tokens).hasSize(5).doesNotHaveDuplicates();
		List<Long> inOrderOfGrant = new ArrayList<>();
		List<TimedToken> timed = new ArrayList<>(first.timedTokens);
		timed.addAll(second.timedTokens);
		timed.sort((x, y) -> Long.compare(x.nanos(), y.nanos()));
		timed.forEach((token) -> inOrderOfGrant.add(token.token()));
		assertThat(inOrderOfGrant).isSorted();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "watchdog", "fixed", CONTROL })
	void aLeaderWhoseLockIsDeletedStepsDownWithinOneHeartbeat(String kind) throws Exception {
		stepsDownWithinOneHeartbeat(kind, "deleted", () -> this.instances.keys().delete(key(kind)));
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "watchdog", "fixed", CONTROL })
	void aLeaderWhoseLockExpiresStepsDownWithinOneHeartbeat(String kind) throws Exception {
		stepsDownWithinOneHeartbeat(kind, "expired",
				() -> this.instances.keys().expire(key(kind), 1, TimeUnit.MILLISECONDS));
	}

	/**
	 * The key of the leader's lock in Redis.
	 */
	private String key(String kind) {
		return kind.equals(CONTROL) ? CONTROL + ":" + this.role : Instances.key(this.role);
	}

	private void stepsDownWithinOneHeartbeat(String kind, String how, Runnable loseTheLock) throws Exception {
		Contender first = contender("a", kind, HEARTBEAT);
		Contender second = contender("b", kind, HEARTBEAT);
		first.start();
		second.start();
		Contender leader = awaitLeader(first, second);
		List<Long> stepDowns = new ArrayList<>();
		List<Long> overlaps = new ArrayList<>();
		int kept = 0;
		for (int round = 0; round < 4; round++) {
			Contender follower = (leader == first) ? second : first;
			int revoked = leader.revocations();
			int granted = follower.grants();
			// Somewhere within the leader's heartbeat.
			Thread.sleep(100 + round * 100);
			long lost = System.nanoTime();
			loseTheLock.run();
			Contender oldLeader = leader;
			long deadline = lost + Duration.ofSeconds(5).toNanos();
			while (oldLeader.revocations() == revoked && System.nanoTime() < deadline) {
				Thread.sleep(5);
			}
			if (oldLeader.revocations() == revoked) {
				// Only Spring Integration's registry takes the lock again when the
				// leader's
				// heartbeat finds it free (the adapter answers false, so the leader steps
				// down and is elected again).
				assertThat(kind).as("a leader kept leading after losing its lock").isEqualTo(CONTROL);
				assertThat(follower.grants()).isEqualTo(granted);
				kept++;
				continue;
			}
			long steppedDown = oldLeader.lastRevokedNanos;
			stepDowns.add(TimeUnit.NANOSECONDS.toMillis(steppedDown - lost));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> follower.grants() > granted || oldLeader.grants() > oldLeader.revocations());
			Contender newLeader = (follower.grants() > granted) ? follower : oldLeader;
			if (newLeader == follower) {
				overlaps.add(Math.max(0, TimeUnit.NANOSECONDS.toMillis(steppedDown - follower.lastGrantedNanos)));
			}
			await().atMost(Duration.ofSeconds(10)).until(newLeader::isLeader);
			leader = newLeader;
		}
		System.out.println("Leader lock " + how + " (" + kind + ", heartbeat " + HEARTBEAT
				+ " ms): old leader stepped down after " + stepDowns + " ms; two leaders for " + overlaps + " ms"
				+ ((kept > 0) ? "; kept leading (took the lock again) " + kept + " time(s)" : ""));
		// Spring Integration's own registry waits a whole heartbeat more: its re-entry
		// waits for the lock that another instance took.
		Duration bound = Duration.ofMillis(kind.equals(CONTROL) ? 2 * HEARTBEAT : HEARTBEAT).plus(MARGIN);
		assertThat(stepDowns).allSatisfy((millis) -> assertThat(Duration.ofMillis(millis)).isLessThan(bound));
		assertThat(overlaps).allSatisfy((millis) -> assertThat(Duration.ofMillis(millis)).isLessThan(bound));
	}

	@Test
	void aLeaderWhoseFixedLeaseRunsOutBetweenHeartbeatsStepsDownAtTheNext() throws Exception {
		// Misconfigured on purpose: a heartbeat longer than the lease, so the lock
		// expires
		// between two heartbeats and the other instance takes it.
		Contender first = contender("a", "fixed", 300, 1000);
		Contender second = contender("b", "fixed", 300, 1000);
		first.start();
		second.start();
		Contender leader = awaitLeader(first, second);
		Contender follower = (leader == first) ? second : first;
		int revoked = leader.revocations();
		await().atMost(Duration.ofSeconds(10)).until(() -> follower.grants() > 0);
		long taken = follower.lastGrantedNanos;
		await().atMost(Duration.ofSeconds(10)).until(() -> leader.revocations() > revoked);
		long overlap = TimeUnit.NANOSECONDS.toMillis(leader.lastRevokedNanos - taken);
		System.out.println("Leader lock expired between heartbeats (fixed 300 ms, heartbeat 1000 ms): two leaders for "
				+ Math.max(0, overlap) + " ms");
		assertThat(Duration.ofMillis(overlap)).isLessThan(Duration.ofMillis(1000).plus(MARGIN));
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "watchdog", "fixed" })
	void aLeaderThatLostItsLockAndLeadsAgainReleasesItWhenItStops(String kind) throws Exception {
		Contender first = contender("a", kind, HEARTBEAT);
		first.start();
		await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
		Contender second = contender("b", kind, HEARTBEAT);
		second.start();
		// The leader loses its lock and steps down; the other instance leads.
		this.instances.keys().delete(Instances.key(this.role));
		await().atMost(Duration.ofSeconds(10)).until(() -> first.revocations() == 1);
		await().atMost(Duration.ofSeconds(10)).until(() -> second.isLeader() || first.grants() == 2);
		if (second.isLeader()) {
			// The other instance stops: the first leads again.
			second.initiator.stop();
			await().atMost(Duration.ofSeconds(10)).until(() -> first.grants() == 2);
		}
		else {
			second.initiator.stop();
		}
		assertThat(first.isLeader()).isTrue();
		first.initiator.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> first.revocations() == 2);
		// Released by its stop, not left to a lease (or held for ever by the watchdog).
		await().atMost(Duration.ofSeconds(3)).until(() -> !this.instances.exists(this.role));
		Contender third = contender("c", kind, HEARTBEAT);
		third.start();
		await().atMost(Duration.ofSeconds(5)).until(third::isLeader);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "watchdog", "fixed" })
	void aKilledLeadersLockPassesOnWithinALease(String kind) throws Exception {
		long lease = 2000;
		ChildJvm child = child(kind, lease, HEARTBEAT);
		long childToken = Long.parseLong(child.await("GRANTED", Duration.ofSeconds(60))[0]);
		Contender follower = contender("b", kind, lease, HEARTBEAT);
		follower.start();
		Thread.sleep(1500);
		assertThat(follower.grants()).as("granted while the child leads").isZero();
		long killed = System.nanoTime();
		child.kill();
		await().atMost(Duration.ofSeconds(15)).until(() -> follower.grants() == 1);
		long failOver = TimeUnit.NANOSECONDS.toMillis(follower.lastGrantedNanos - killed);
		System.out.println("Leader killed (" + kind + ", lease " + lease + " ms, heartbeat " + HEARTBEAT
				+ " ms): the other instance led after " + failOver + " ms");
		assertThat(Duration.ofMillis(failOver)).isLessThan(Duration.ofMillis(lease + HEARTBEAT).plus(MARGIN));
		assertThat(follower.tokens.get(0)).isGreaterThan(childToken);
	}

	@Test
	void aFrozenLeaderStepsDownWithinOneHeartbeatOfRunningAgain() throws Exception {
		long lease = 2000;
		ChildJvm child = child("fixed", lease, HEARTBEAT);
		child.await("GRANTED", Duration.ofSeconds(60));
		Contender follower = contender("b", "fixed", lease, HEARTBEAT);
		follower.start();
		Thread.sleep(1000);
		assertThat(follower.grants()).as("granted while the child leads").isZero();
		long paused = System.currentTimeMillis();
		child.pause();
		await().atMost(Duration.ofSeconds(15)).until(() -> follower.grants() == 1);
		Thread.sleep(500);
		long resumed = System.currentTimeMillis();
		child.resume();
		long revoked = Long.parseLong(child.await("REVOKED", Duration.ofSeconds(15))[0]);
		System.out.println("Leader frozen past its lease (fixed " + lease + " ms, heartbeat " + HEARTBEAT
				+ " ms): stepped down " + (revoked - resumed) + " ms after it ran again");
		assertThat(revoked).as("stepped down after it was frozen (at %d)", paused).isGreaterThan(paused);
		assertThat(Duration.ofMillis(revoked - resumed)).isLessThan(Duration.ofMillis(HEARTBEAT).plus(MARGIN));
		assertThat(follower.isLeader()).isTrue();
	}

	private ChildJvm child(String kind, long lease, long heartbeat) {
		ChildJvm child = ChildJvm.start(LeaderProcess.class, this.server.host(), String.valueOf(this.server.port()),
				this.role, kind, String.valueOf(lease), String.valueOf(heartbeat));
		this.children.add(child);
		child.await("READY", Duration.ofSeconds(60));
		return child;
	}

	private Contender contender(String id, String kind, long heartbeat) {
		return contender(id, kind, 30_000, heartbeat);
	}

	/**
	 * A contender on an application instance of its own: a registry of {@code kind} with
	 * lease {@code lease} ms (the template's, the registry's lease time, or its
	 * {@code expireAfter}), and Spring Integration's initiator with that heartbeat.
	 */
	private Contender contender(String id, String kind, long lease, long heartbeat) {
		Duration leaseTime = Duration.ofMillis(lease);
		if (kind.equals(CONTROL)) {
			RedisLockRegistry registry = this.instances
				.registerOther(new RedisLockRegistry(this.instances.connectionFactory(), CONTROL, leaseTime));
			return new Contender(id, this.role, registry, heartbeat, this.instances);
		}
		RedisLockRegistryAdapter registry = this.instances
			.register(kind.equals("fixed") ? new RedisLockRegistryAdapter(this.instances.template(leaseTime), leaseTime)
					: new RedisLockRegistryAdapter(this.instances.template(leaseTime)));
		registry.setLeaseTime(leaseTime);
		return new Contender(id, this.role, registry, heartbeat, this.instances);
	}

	private static Contender awaitLeader(Contender first, Contender second) {
		await().atMost(Duration.ofSeconds(10)).until(() -> first.isLeader() || second.isLeader());
		return first.isLeader() ? first : second;
	}

	record TimedToken(long token, long nanos) {

	}

	/**
	 * A candidate and its initiator; records its events and the fencing token it reads
	 * when granted, on the thread that holds the lock.
	 */
	static final class Contender implements Candidate {

		private final String id;

		private final String role;

		private final LockRegistry<?> registry;

		final LockRegistryLeaderInitiator initiator;

		final List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();

		final List<Long> tokens = new CopyOnWriteArrayList<>();

		final List<TimedToken> timedTokens = new CopyOnWriteArrayList<>();

		volatile long lastGrantedNanos;

		volatile long lastRevokedNanos;

		private final AtomicInteger grants = new AtomicInteger();

		private final AtomicInteger revocations = new AtomicInteger();

		Contender(String id, String role, LockRegistry<?> registry, long heartbeat, Instances instances) {
			this.id = id;
			this.role = role;
			this.registry = registry;
			this.initiator = instances.register(new LockRegistryLeaderInitiator(registry, this));
			this.initiator.setHeartBeatMillis(heartbeat);
			this.initiator.setApplicationEventPublisher((event) -> {
				if (event instanceof AbstractLeaderEvent leaderEvent) {
					this.events.add(leaderEvent);
				}
			});
		}

		void start() {
			this.initiator.start();
		}

		boolean isLeader() {
			return this.initiator.getContext().isLeader();
		}

		int grants() {
			return this.grants.get();
		}

		int revocations() {
			return this.revocations.get();
		}

		@Override
		public String getRole() {
			return this.role;
		}

		@Override
		public String getId() {
			return this.id;
		}

		@Override
		public void onGranted(Context context) {
			if (this.registry instanceof RedisLockRegistryAdapter adapter) {
				long token = adapter.fencingToken(context.getRole());
				this.tokens.add(token);
				this.timedTokens.add(new TimedToken(token, System.nanoTime()));
			}
			this.lastGrantedNanos = System.nanoTime();
			this.grants.incrementAndGet();
		}

		@Override
		public void onRevoked(Context context) {
			this.lastRevokedNanos = System.nanoTime();
			this.revocations.incrementAndGet();
		}

	}

}
