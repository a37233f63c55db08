package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.core.OnLockLost;
import io.github.redislock.internal.HashTags;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of the distributed locks, under {@code redislock}. Redis
 * itself is configured with Spring Boot's {@code spring.data.redis.*}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("redislock")
public class RedisLockProperties implements InitializingBean {

	private static final int DEFAULT_ADVICE_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	/**
	 * Whether to enable the distributed locks. When false no bean of the starter is
	 * registered and annotated methods run as plain methods.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and channel the locks use. Must not contain '{' or '}'.
	 */
	private String keyPrefix = "redislock";

	/**
	 * Lease of locks taken without a fixed lease. The watchdog renews it every third of
	 * this while the lock is held, so it bounds how long a crashed holder blocks others.
	 */
	private Duration leaseTime = Duration.ofSeconds(30);

	/**
	 * How long annotated methods wait for their lock when the annotation sets no
	 * waitTime.
	 */
	private Duration waitTime = Duration.ofSeconds(10);

	/**
	 * What releasing a lock that was lost while held does: 'throw' a LockLostException,
	 * or 'log' a warning only.
	 */
	private OnLockLost onLockLost = OnLockLost.THROW;

	/**
	 * Whether a thread whose lock is found lost while it still holds it (a renewal found
	 * it gone, or its lease ran out locally) is interrupted, so that blocking work under
	 * the lock (I/O, sleeps, waits) stops early. The loss is reported either way.
	 */
	private boolean interruptOnLockLost;

	/**
	 * Order of the lock advice among the advice on a bean. Lower runs outside: the
	 * default runs just outside @Transactional (Ordered.LOWEST_PRECEDENCE), so the lock
	 * is taken before the transaction begins and released after it commits.
	 */
	private int adviceOrder = DEFAULT_ADVICE_ORDER;

	/**
	 * Replicas that must confirm an acquisition (with the WAIT command) before it counts;
	 * a shortfall releases the lock again and counts as not acquired. 0 turns this off.
	 * With Sentinel, it keeps an acknowledged lock through a failover; on a Cluster, the
	 * replicas of the master that owns the lock's slot confirm it. Needs Lettuce.
	 */
	private int minReplicasAcked = 0;

	/**
	 * How long an acquisition waits for the replicas' confirmation.
	 */
	private Duration replicaAckTimeout = Duration.ofMillis(100);

	/**
	 * How long the watchdog renews a lock at most: once a hold has lasted this long, its
	 * lease is no longer renewed, so the lock expires at the end of it and is reported
	 * lost (a hung holder cannot keep it forever). Not shorter than lease-time. None by
	 * default; the maxHold attribute of an annotation overrides it.
	 */
	private @Nullable Duration maxHold;

	private final Queue queue = new Queue();

	private final Redlock redlock = new Redlock();

	private final Dashboard dashboard = new Dashboard();

	private final Health health = new Health();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Check the bound values, as Spring Boot checks its own: a value that cannot work
	 * fails start-up with an {@link InvalidConfigurationPropertyValueException} naming
	 * the property, which Boot's failure analysis describes.
	 */
	@Override
	public void afterPropertiesSet() {
		try {
			HashTags.checkPrefix(this.keyPrefix);
		}
		catch (IllegalArgumentException ex) {
			throw invalid("key-prefix", this.keyPrefix, ex.getMessage());
		}
		atLeast("lease-time", this.leaseTime, Duration.ofMillis(30));
		atLeast("wait-time", this.waitTime, Duration.ZERO);
		check("min-replicas-acked", this.minReplicasAcked, this.minReplicasAcked >= 0, "must not be negative");
		positive("replica-ack-timeout", this.replicaAckTimeout);
		if (this.maxHold != null && this.maxHold.compareTo(this.leaseTime) < 0) {
			throw invalid("max-hold", this.maxHold,
					"must not be shorter than redislock.lease-time (" + this.leaseTime + ")");
		}
		positive("health.timeout", this.health.timeout);
		Queue queue = this.queue;
		check("queue.workers", queue.workers, queue.workers >= 0, "must not be negative (0: produce only)");
		positive("queue.poll-interval", queue.pollInterval);
		check("queue.batch-size", queue.batchSize, queue.batchSize > 0, "must be positive");
		atLeast("queue.visibility-timeout", queue.visibilityTimeout, Duration.ofMillis(30));
		check("queue.max-attempts", queue.maxAttempts, queue.maxAttempts > 0, "must be positive");
		atLeast("queue.shutdown-timeout", queue.shutdownTimeout, Duration.ZERO);
		check("queue.max-payload-size", queue.maxPayloadSize, queue.maxPayloadSize != null
				&& queue.maxPayloadSize.toBytes() > 0 && queue.maxPayloadSize.toBytes() <= Integer.MAX_VALUE,
				"must be from 1B to 2GB");
		positive("queue.backoff.initial", queue.backoff.initial);
		check("queue.backoff.multiplier", queue.backoff.multiplier, queue.backoff.multiplier >= 1,
				"must be at least 1");
		atLeast("queue.backoff.max", queue.backoff.max, queue.backoff.initial);
		check("queue.dead-letter.max-size", queue.deadLetter.maxSize, queue.deadLetter.maxSize > 0, "must be positive");
		positive("queue.dead-letter.max-age", queue.deadLetter.maxAge);
		Dashboard dashboard = this.dashboard;
		String path = dashboard.path;
		check("dashboard.path", path,
				path.startsWith("/") && path.length() > 1 && !path.endsWith("/") && !path.contains("*")
						&& !path.contains("{") && !path.contains("?"),
				"must start with '/', not end with '/', and hold no pattern");
		check("dashboard.role", dashboard.role, !dashboard.role.isBlank(), "must not be empty");
		atLeast("dashboard.refresh-interval", dashboard.refreshInterval, Duration.ofMillis(500));
		positive("redlock.node-timeout", this.redlock.nodeTimeout);
		positive("redlock.retry-delay", this.redlock.retryDelay);
		check("redlock.clock-drift-factor", this.redlock.clockDriftFactor,
				this.redlock.clockDriftFactor >= 0 && this.redlock.clockDriftFactor < 0.5, "must be in [0, 0.5)");
	}

	private static void check(String name, Object value, boolean valid, String reason) {
		if (!valid) {
			throw invalid(name, value, reason);
		}
	}

	private static void positive(String name, @Nullable Duration value) {
		check(name, String.valueOf(value), value != null && !value.isNegative() && !value.isZero(), "must be positive");
	}

	private static void atLeast(String name, @Nullable Duration value, Duration minimum) {
		check(name, String.valueOf(value), value != null && value.compareTo(minimum) >= 0,
				"must be at least " + minimum);
	}

	private static InvalidConfigurationPropertyValueException invalid(String name, Object value,
			@Nullable String reason) {
		return new InvalidConfigurationPropertyValueException("redislock." + name, value, reason);
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public boolean isInterruptOnLockLost() {
		return this.interruptOnLockLost;
	}

	public void setInterruptOnLockLost(boolean interruptOnLockLost) {
		this.interruptOnLockLost = interruptOnLockLost;
	}

	public OnLockLost getOnLockLost() {
		return this.onLockLost;
	}

	public void setOnLockLost(OnLockLost onLockLost) {
		this.onLockLost = onLockLost;
	}

	/**
	 * Read the advice order before the properties are bound (advisors are infrastructure
	 * beans, created early).
	 * @param environment the environment
	 * @return {@code redislock.advice-order}, or its default
	 */
	static int adviceOrder(Environment environment) {
		return environment.getProperty("redislock.advice-order", Integer.class, DEFAULT_ADVICE_ORDER);
	}

	public int getAdviceOrder() {
		return this.adviceOrder;
	}

	public void setAdviceOrder(int adviceOrder) {
		this.adviceOrder = adviceOrder;
	}

	public int getMinReplicasAcked() {
		return this.minReplicasAcked;
	}

	public void setMinReplicasAcked(int minReplicasAcked) {
		this.minReplicasAcked = minReplicasAcked;
	}

	public @Nullable Duration getMaxHold() {
		return this.maxHold;
	}

	public void setMaxHold(@Nullable Duration maxHold) {
		this.maxHold = maxHold;
	}

	public Duration getReplicaAckTimeout() {
		return this.replicaAckTimeout;
	}

	public void setReplicaAckTimeout(Duration replicaAckTimeout) {
		this.replicaAckTimeout = replicaAckTimeout;
	}

	public Queue getQueue() {
		return this.queue;
	}

	public Redlock getRedlock() {
		return this.redlock;
	}

	public Dashboard getDashboard() {
		return this.dashboard;
	}

	public Health getHealth() {
		return this.health;
	}

	/**
	 * The redislock health indicator (/actuator/health/redislock), turned off with
	 * management.health.redislock.enabled=false.
	 */
	public static class Health {

		/**
		 * How long the health check waits for Redis (a PING on the lock engine's
		 * connection, then each queue's depths) before it reports DOWN, so that a Redis
		 * that does not answer cannot hold up the health endpoint.
		 */
		private Duration timeout = Duration.ofSeconds(1);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * The operator's page of a servlet web application: queues (depths, lag, pause and
	 * resume), dead letters (requeue, purge), upcoming tasks (cancel), this instance's
	 * held locks and a holder lookup.
	 */
	public static class Dashboard {

		/**
		 * Whether to serve the dashboard. Off by default.
		 */
		private boolean enabled;

		/**
		 * Path of the dashboard page; its data and actions are served below it.
		 */
		private String path = "/redislock";

		/**
		 * Role a Spring Security user needs for the write actions (pause, resume,
		 * requeue, purge, cancel), without the 'ROLE_' prefix. Used when Spring Security
		 * is on the class path; everyone else sees the page read-only.
		 */
		private String role = "REDISLOCK_ADMIN";

		/**
		 * Whether to allow the write actions to everyone who can reach the page when
		 * Spring Security is not on the class path. Off by default: without Spring
		 * Security the page is read-only.
		 */
		private boolean writeEnabled;

		/**
		 * How often the page refreshes itself.
		 */
		private Duration refreshInterval = Duration.ofSeconds(3);

		/**
		 * Without Spring Security, the host names the dashboard answers besides IP
		 * addresses, 'localhost' and this machine's own names: a request whose Host is
		 * another name is refused (a site whose name was pointed at this server, DNS
		 * rebinding, would otherwise pass the same-origin checks). '*' allows any. Not
		 * used with Spring Security.
		 */
		private List<String> allowedHosts = new ArrayList<>();

		public List<String> getAllowedHosts() {
			return this.allowedHosts;
		}

		public void setAllowedHosts(List<String> allowedHosts) {
			this.allowedHosts = allowedHosts;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

		public String getRole() {
			return this.role;
		}

		public void setRole(String role) {
			this.role = role.startsWith("ROLE_") ? role.substring(5) : role;
		}

		public boolean isWriteEnabled() {
			return this.writeEnabled;
		}

		public void setWriteEnabled(boolean writeEnabled) {
			this.writeEnabled = writeEnabled;
		}

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

	}

	/**
	 * RedLock settings: locks taken with {@code redlock = true} or through the
	 * {@code redLockTemplate} bean.
	 */
	public static class Redlock {

		/**
		 * Independent Redis servers (masters without replication between them), as
		 * 'redis://[user:password@]host:port' URIs, 'rediss://' for TLS. An odd number,
		 * at least three, is usual: a lock needs a majority.
		 */
		private List<String> nodes = new ArrayList<>();

		/**
		 * How long one node may take to answer one attempt; keep it far below the lease.
		 */
		private Duration nodeTimeout = Duration.ofMillis(100);

		/**
		 * Mean pause between two attempts while waiting (randomised between half and one
		 * and a half times it).
		 */
		private Duration retryDelay = Duration.ofMillis(200);

		/**
		 * Share of the lease assumed lost to clock drift between the nodes.
		 */
		private double clockDriftFactor = 0.01;

		/**
		 * Name of the SSL bundle ('spring.ssl.bundle.*') whose trust store, and key store
		 * when the nodes ask for a client certificate, the 'rediss://' nodes are reached
		 * with. Without one they are reached with the JVM's default trust store.
		 */
		private @Nullable String sslBundle;

		public List<String> getNodes() {
			return this.nodes;
		}

		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

		public Duration getNodeTimeout() {
			return this.nodeTimeout;
		}

		public void setNodeTimeout(Duration nodeTimeout) {
			this.nodeTimeout = nodeTimeout;
		}

		public Duration getRetryDelay() {
			return this.retryDelay;
		}

		public void setRetryDelay(Duration retryDelay) {
			this.retryDelay = retryDelay;
		}

		public double getClockDriftFactor() {
			return this.clockDriftFactor;
		}

		public void setClockDriftFactor(double clockDriftFactor) {
			this.clockDriftFactor = clockDriftFactor;
		}

		public @Nullable String getSslBundle() {
			return this.sslBundle;
		}

		public void setSslBundle(@Nullable String sslBundle) {
			this.sslBundle = sslBundle;
		}

	}

	/**
	 * Task queue settings.
	 */
	public static class Queue {

		/**
		 * Concurrent tasks per queue on this instance. 0 makes this instance produce
		 * tasks only. The workers attribute of a @QueuedTask method overrides it for its
		 * queue.
		 */
		private int workers = 4;

		/**
		 * How often an idle instance looks at its queues: each idle queue every poll
		 * interval times the number of queues the instance works on, at most every 60 s
		 * (or every poll interval, when longer), so an idle instance sends one look per
		 * poll interval however many queues it has, up to that bound (30 queues at 2 s).
		 * Enqueued tasks that are due at once, delayed tasks and retries that fall due
		 * before the next look, and tasks that waited for their id's run wake idle
		 * workers by a notification (sent only while a worker idles; busy workers look
		 * again as each task ends). The looks are the fallback: they make up for a lost
		 * notification, and take back tasks whose worker died (at the latest at the first
		 * look after their visibility timeout). While the notifications cannot be
		 * subscribed to, each queue is looked at every poll interval; a subscription that
		 * stops hearing (a half-open connection) is found by a probe every 30 s,
		 * replaced, and every queue looked at.
		 */
		private Duration pollInterval = Duration.ofSeconds(2);

		/**
		 * Most tasks a worker pool takes in one claim.
		 */
		private int batchSize = 16;

		/**
		 * How long a claimed task stays invisible to other workers without a renewal.
		 * Running tasks are renewed every third of it; a task whose worker died runs
		 * again once it passes. A worker whose claim was not confirmed within it counts
		 * the claim as lost (TaskContext.isClaimHeld() turns false). The
		 * visibilityTimeout attribute of a @QueuedTask method overrides it for its queue.
		 */
		private Duration visibilityTimeout = Duration.ofSeconds(30);

		/**
		 * Runs of a failing task before it goes to the dead letters. A task claimed this
		 * many times whose workers never reported back (killed, halted) goes there too.
		 * The maxAttempts attribute of a @QueuedTask method overrides it for its queue.
		 */
		private int maxAttempts = 5;

		/**
		 * Time allowed for running tasks to finish at shutdown. Unfinished ones are then
		 * interrupted; a task that returns hands its claim back to the queue, one that
		 * does not keeps it until its visibility timeout passes.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(30);

		/**
		 * Largest payload (the task's arguments as JSON, in UTF-8) accepted at enqueue. A
		 * larger one is refused with an IllegalArgumentException naming the queue, the
		 * task, its size and this limit, and nothing is enqueued.
		 */
		private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

		private final Backoff backoff = new Backoff();

		private final DeadLetter deadLetter = new DeadLetter();

		public int getWorkers() {
			return this.workers;
		}

		public DataSize getMaxPayloadSize() {
			return this.maxPayloadSize;
		}

		public void setMaxPayloadSize(DataSize maxPayloadSize) {
			this.maxPayloadSize = maxPayloadSize;
		}

		public void setWorkers(int workers) {
			this.workers = workers;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getVisibilityTimeout() {
			return this.visibilityTimeout;
		}

		public void setVisibilityTimeout(Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

		public DeadLetter getDeadLetter() {
			return this.deadLetter;
		}

	}

	/**
	 * Pauses between the retries of a failing task.
	 */
	public static class Backoff {

		/**
		 * Pause before the first retry. The backoff attribute of a @QueuedTask method
		 * overrides it for its queue.
		 */
		private Duration initial = Duration.ofSeconds(1);

		/**
		 * Factor applied to the pause for each further retry.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest pause between two retries.
		 */
		private Duration max = Duration.ofMinutes(5);

		public Duration getInitial() {
			return this.initial;
		}

		public void setInitial(Duration initial) {
			this.initial = initial;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = max;
		}

	}

	/**
	 * Where tasks that failed too often are kept.
	 */
	public static class DeadLetter {

		/**
		 * Most dead tasks kept per queue; the oldest go first.
		 */
		private int maxSize = 10000;

		/**
		 * How long dead tasks are kept. Trimmed by every claim and death; the dead
		 * letters of a queue expire as a whole this long after its newest death.
		 */
		private Duration maxAge = Duration.ofDays(7);

		public int getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(int maxSize) {
			this.maxSize = maxSize;
		}

		public Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(Duration maxAge) {
			this.maxAge = maxAge;
		}

	}

}
