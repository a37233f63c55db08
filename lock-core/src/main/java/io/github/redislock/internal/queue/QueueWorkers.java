package io.github.redislock.internal.queue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.internal.OutageLog;
import io.github.redislock.support.Printable;
import io.github.redislock.internal.lock.EngineThreads;
import io.github.redislock.queue.TaskFailedEvent;
import io.github.redislock.queue.TaskPayloadMigration;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;
import io.github.redislock.support.RunningTasks;

/**
 * Runs the {@code @QueuedTask} methods of this instance: one {@link QueuePoller} per
 * queue with {@link QueueSettings#workers()} concurrent tasks, woken by enqueue
 * notifications and otherwise looking every poll interval, each renewing the claims of
 * its running tasks with one script call per tick on a thread of its own.
 * <p>
 * Delivery is at-least-once. On {@link #stop()} the pollers stop taking tasks and running
 * tasks may finish within the shutdown timeout; those that do not are interrupted, and a
 * task that then returns hands its claim back (waiting again, due now, the attempt not
 * counted). The claim of a task that does not return is left to its visibility timeout:
 * no other instance starts a task while it still runs here.
 *
 * @since 0.1.0
 */
public final class QueueWorkers implements SmartLifecycle, ApplicationEventPublisherAware, DisposableBean {

	private static final Log logger = LogFactory.getLog(QueueWorkers.class);

	/**
	 * How long interrupted tasks get to return at shutdown before their claims are left
	 * to expire.
	 */
	private static final long INTERRUPT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

	/**
	 * The method a worker is about to call through the bean's proxy, consumed by that
	 * call.
	 */
	private static final ThreadLocal<Method> WORKER_CALL = new ThreadLocal<>();

	private final RedisTaskQueue queue;

	private final QueueSettings settings;

	private final RedisConnectionFactory connectionFactory;

	private final BeanFactory beanFactory;

	private final QueueExecutors executors;

	private final String instanceId = UUID.randomUUID().toString();

	private final Map<String, QueuePoller> pollers = new ConcurrentHashMap<>();

	private final Map<String, Handler> handlers = new ConcurrentHashMap<>();

	/** The method to invoke per handler method and bean class, looked up once. */
	private final Map<Invocable, Method> invocable = new ConcurrentHashMap<>();

	/** Per queue: acknowledgements of finished tasks, sent in groups. */
	private final Map<String, Acknowledgements> acknowledgements = new ConcurrentHashMap<>();

	private volatile @Nullable NotificationSubscription notifications;

	/** The longest pause before a task handed back to a later version is due again. */
	static final Duration MAX_DEFER = Duration.ofMinutes(5);

	/** The queues and versions whose tasks this instance handed back, for its log. */
	private final Set<String> deferredVersions = ConcurrentHashMap.newKeySet();

	/** The application's payload migrations, in order, looked up on first use. */
	private volatile @Nullable List<TaskPayloadMigration> migrations;

	/** Whether a subscription is being made after one failed. */
	private final AtomicBoolean subscribing = new AtomicBoolean();

	/**
	 * The last connect of a subscription given up at its bound, while it still runs (see
	 * {@link NotificationSubscription#SUBSCRIBE_TIMEOUT}).
	 */
	private final AtomicReference<@Nullable CompletableFuture<?>> connectGivenUp = new AtomicReference<>();

	/**
	 * The failures of this instance's calls to Redis (claims, renewals, the
	 * subscription): one WARN when an outage starts, one INFO when it ends.
	 */
	private final OutageLog outages = new OutageLog(logger, "The task queue workers");

	private volatile @Nullable ApplicationEventPublisher events;

	/** Subscriptions to the queues' notifications are made here, one at a time. */
	private final ThreadPoolTaskExecutor subscriptionThread = EngineThreads.serial("redislock-queue-subscribe");

	/**
	 * Where a client whose subscription blocks its thread (Jedis) listens, for as long as
	 * the subscription lasts; Lettuce's needs no thread. Not the subscription thread: the
	 * container's start waits there for the subscription to be made.
	 */
	private final ThreadPoolTaskExecutor listeningThreads = EngineThreads.unbounded("redislock-queue-listen");

	/** Task-failed events are handed over here, off the worker threads, in order. */
	private final ThreadPoolTaskExecutor eventThread = EngineThreads.serial("redislock-task-failed-events");

	/**
	 * How often a subscribed instance checks that its subscription still hears (see
	 * {@link #probe(long)}): the bound on how late a notification lost on a connection
	 * that stays open (half-open behind a load balancer) is made up for, whatever the
	 * idle pause of its queues.
	 */
	static final long PROBE_MILLIS = 30_000;

	/** How long a probe may take to come back before the subscription is given up. */
	static final long PROBE_TIMEOUT_MILLIS = 2_000;

	/** The probe period in use (shorter in tests: {@link #probeEvery(long)}). */
	private volatile long probeMillis = PROBE_MILLIS;

	/** Sends the probes and times them, on one platform thread. */
	private final ThreadPoolTaskScheduler probeThread = EngineThreads.scheduler("redislock-queue-probe", 1);

	private volatile @Nullable ScheduledFuture<?> probing;

	/**
	 * The current chain of probes: each probe schedules the next only while its chain is
	 * current, so that a probe under way across a stop and start (or a new period) does
	 * not leave a second chain behind.
	 */
	private final AtomicLong probeChain = new AtomicLong();

	/** Guards giving a subscription up: once per subscription. */
	private final Object givingUp = new Object();

	/** The number of the last probe sent, and of the last one heard. */
	private final AtomicLong probesSent = new AtomicLong();

	private final AtomicLong probesHeard = new AtomicLong();

	private volatile boolean running;

	private volatile boolean stopping;

	public QueueWorkers(RedisTaskQueue queue, QueueSettings settings, RedisConnectionFactory connectionFactory,
			BeanFactory beanFactory, QueueExecutors executors) {
		this.queue = queue;
		this.settings = settings;
		this.connectionFactory = connectionFactory;
		this.beanFactory = beanFactory;
		this.executors = executors;
	}

	/**
	 * Return whether this call of a {@code @QueuedTask} method is a worker running the
	 * task's method body, which the advice then lets through instead of enqueueing it. It
	 * is true once per task run, for the worker's own call: a {@code @QueuedTask} method
	 * called from inside a running task is enqueued like any other call.
	 * @param method the invoked method
	 * @param targetClass the target class, if known
	 * @return whether to run the method body
	 */
	public static boolean takeWorkerCall(Method method, @Nullable Class<?> targetClass) {
		Method pending = WORKER_CALL.get();
		if (pending != null && pending.equals(AopUtils.getMostSpecificMethod(method, targetClass))) {
			WORKER_CALL.remove();
			return true;
		}
		return false;
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher events) {
		this.events = events;
	}

	/**
	 * Register the {@code @QueuedTask} method that handles a queue, with the queue's
	 * settings from {@code redislock.queue.*}.
	 * @param queueName the queue
	 * @param beanName the bean whose method it is (called through its proxy)
	 * @param method the method
	 */
	public void register(String queueName, String beanName, Method method) {
		register(queueName, beanName, method, TaskSettings.DEFAULTS);
	}

	/**
	 * Register the {@code @QueuedTask} method that handles a queue.
	 * @param queueName the queue
	 * @param beanName the bean whose method it is (called through its proxy)
	 * @param method the method
	 * @param taskSettings the queue's own settings
	 */
	public void register(String queueName, String beanName, Method method, TaskSettings taskSettings) {
		Handler previous = this.handlers.putIfAbsent(queueName,
				new Handler(beanName, method, taskSettings, taskSettings.applyTo(this.settings),
						new TaskVersion(taskSettings.version(), TaskVersion.signature(method))));
		if (previous != null && !previous.method().equals(method)) {
			throw new IllegalStateException("Queue '" + queueName + "' is handled by both " + previous.method()
					+ " and " + method + "; give each @QueuedTask method its own queue");
		}
	}

	/**
	 * Return why a {@code @QueuedTask} method's parameters cannot carry a task's
	 * arguments, or {@code null} when they can (see {@link TaskArguments#unreadable}).
	 * @param method the method
	 * @return the reason, naming the parameter, or {@code null}
	 */
	public @Nullable String unreadableParameters(Method method) {
		return TaskArguments.unreadable(this.queue.json(), method);
	}

	/**
	 * Return the handler of a queue, or {@code null} when this instance has none.
	 */
	@Nullable Handler handler(String queueName) {
		return this.handlers.get(queueName);
	}

	public QueueSettings getSettings() {
		return this.settings;
	}

	/**
	 * Return the settings a queue's tasks run with on this instance: those of its
	 * {@code @QueuedTask} method over {@code redislock.queue.*}.
	 * @param queueName the queue
	 * @return its settings
	 */
	public QueueSettings getSettings(String queueName) {
		Handler handler = this.handlers.get(queueName);
		return (handler != null) ? handler.settings() : this.settings;
	}

	/**
	 * Return the queues that have a handler on this instance.
	 */
	public List<String> getQueueNames() {
		return new ArrayList<>(this.handlers.keySet());
	}

	/**
	 * Run the due tasks of a queue on the calling thread, one at a time, until none is
	 * due or {@code max} have run; for tests, which then need no worker threads
	 * ({@code redislock.queue.workers=0}). Each run is claimed, settled, retried and
	 * dead-lettered as a worker's run is, but its claim is not renewed: a run longer than
	 * the visibility timeout may be claimed again elsewhere. A retry waits for its
	 * backoff like any other delayed task. An interrupted calling thread takes no task
	 * (an {@link IllegalStateException}, the interrupt kept).
	 * @param queueName the queue, which a {@code @QueuedTask} method of this application
	 * handles
	 * @param max the most runs
	 * @return how many tasks ran
	 */
	public int runDueTasks(String queueName, int max) {
		Handler handler = this.handlers.get(queueName);
		Assert.state(handler != null,
				() -> "No @QueuedTask method of this application handles queue '" + Printable.of(queueName)
						+ "'; the queues it handles are " + new java.util.TreeSet<>(this.handlers.keySet()));
		int runs = 0;
		while (runs < max) {
			if (Thread.currentThread().isInterrupted()) {
				throw callerInterrupted(queueName, runs);
			}
			long sent = System.nanoTime();
			// With the interrupt flag cleared: an interrupted client call may still have
			// claimed the task in Redis, which then nobody would run before its
			// visibility
			// timeout.
			boolean interrupted = Thread.interrupted();
			RedisTaskQueue.Claimed claimed;
			try {
				claimed = this.queue.claim(queueName, 1, this.instanceId + ":caller", handler.settings());
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
			if (claimed.tasks().isEmpty()) {
				return runs;
			}
			if (Thread.currentThread().isInterrupted()) {
				// Interrupted meanwhile: hand the claims back (due now, no attempt
				// spent).
				for (RedisTaskQueue.ClaimedTask task : claimed.tasks()) {
					settle(new TaskRun(task, sent), "release", "");
				}
				throw callerInterrupted(queueName, runs);
			}
			for (RedisTaskQueue.ClaimedTask task : claimed.tasks()) {
				run(handler, new TaskRun(task, sent));
				runs++;
			}
		}
		return runs;
	}

	private static IllegalStateException callerInterrupted(String queueName, int runs) {
		return new IllegalStateException("The calling thread is interrupted: no more tasks of queue '"
				+ Printable.of(queueName) + "' taken (" + runs + " ran); its interrupt flag is kept");
	}

	@Override
	public void start() {
		this.running = true;
		this.stopping = false;
		for (Map.Entry<String, Handler> entry : this.handlers.entrySet()) {
			if (entry.getValue().settings().workers() == 0) {
				continue;
			}
			QueuePoller poller = new QueuePoller(entry.getKey(), this.queue, entry.getValue().settings(),
					this.instanceId, (run) -> run(entry.getValue(), run),
					(run, failure) -> handOffFailed(entry.getValue(), run, failure), this.executors, this::failed,
					this::redisReached, this.outages, this::queuesSharingIdleLooks);
			this.pollers.put(entry.getKey(), poller);
			poller.start();
		}
		if (!this.pollers.isEmpty()) {
			subscribeLater();
			scheduleProbe(this.probeChain.incrementAndGet(), this.probeMillis);
		}
	}

	/**
	 * The channel of this instance's probes: its own, so that no other instance hears
	 * them.
	 */
	private String probeChannel() {
		return this.queue.notificationChannel() + ":probe:" + this.instanceId;
	}

	private void scheduleProbe(long chain, long delayMillis) {
		try {
			this.probing = this.probeThread.schedule(() -> probe(chain),
					java.time.Instant.now().plusMillis(Math.max(1, delayMillis)));
		}
		catch (RuntimeException ex) {
			// Shutting down.
		}
	}

	/**
	 * Check that the subscription still hears: publish a probe on this instance's own
	 * channel and expect it back within {@link #PROBE_TIMEOUT_MILLIS}. A subscription
	 * whose connection stays open but carries nothing any more (half-open behind a load
	 * balancer, a NAT entry dropped) would otherwise miss every notification, each made
	 * up for only at its queue's idle look; it is given up and made anew, which wakes
	 * every poller. One request per {@link #PROBE_MILLIS} per instance, whatever its
	 * number of queues. A probe that cannot be sent (Redis unreachable) proves nothing:
	 * the claims report the outage, and a lost connection is handled as such.
	 */
	void probe(long chain) {
		if (chain != this.probeChain.get()) {
			return;
		}
		try {
			NotificationSubscription subscription = this.notifications;
			if (subscription == null || !this.running || this.stopping) {
				return;
			}
			long number = this.probesSent.incrementAndGet();
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				connection.publish(probeChannel().getBytes(StandardCharsets.UTF_8),
						Long.toString(number).getBytes(StandardCharsets.UTF_8));
			}
			catch (RuntimeException ex) {
				logger.debug("Could not send the queue subscription's probe", ex);
				return;
			}
			this.probeThread.schedule(() -> probeDue(subscription, number),
					java.time.Instant.now().plusMillis(PROBE_TIMEOUT_MILLIS));
		}
		catch (RuntimeException ex) {
			// Shutting down.
		}
		finally {
			if (this.running && !this.stopping && chain == this.probeChain.get()) {
				scheduleProbe(chain, this.probeMillis);
			}
		}
	}

	private void probeDue(NotificationSubscription subscription, long number) {
		if (this.probesHeard.get() >= number || this.notifications != subscription || !this.running || this.stopping) {
			return;
		}
		logger.warn("The task queue's subscription did not hear its own probe within " + PROBE_TIMEOUT_MILLIS
				+ " ms (a connection that stays open but carries nothing: a load balancer or NAT dropped it?);"
				+ " subscribing again on a new connection, and looking at every queue");
		subscriptionLost(subscription);
	}

	/**
	 * Return the number of the last probe heard back.
	 */
	long probesHeard() {
		return this.probesHeard.get();
	}

	/**
	 * Check the subscription every {@code millis} from now on (tests).
	 */
	void probeEvery(long millis) {
		this.probeMillis = millis;
		long chain = this.probeChain.incrementAndGet();
		ScheduledFuture<?> current = this.probing;
		if (current != null) {
			current.cancel(false);
		}
		if (this.running && !this.stopping) {
			scheduleProbe(chain, millis);
		}
	}

	/**
	 * Subscribe on the subscription thread, never on a poller's or the starting thread: a
	 * subscription can block (a pub/sub connection Redis refuses, a client whose
	 * subscription runs on the calling thread), and a poller holds claimed tasks.
	 */
	private void subscribeLater() {
		if (this.notifications != null || !this.subscribing.compareAndSet(false, true)) {
			return;
		}
		try {
			this.subscriptionThread.execute(() -> {
				try {
					if (this.notifications == null && this.running && !this.stopping) {
						subscribe();
						NotificationSubscription made = this.notifications;
						if (made != null && (this.stopping || !this.running)) {
							// Stopped meanwhile.
							this.notifications = null;
							made.close();
						}
						else if (made != null) {
							this.outages.succeeded("subscription");
							if (made.isLost()) {
								// Lost before it was known here: its report was missed.
								subscriptionLost(made);
							}
						}
					}
				}
				finally {
					this.subscribing.set(false);
				}
			});
		}
		catch (RuntimeException ex) {
			// Shutting down.
			this.subscribing.set(false);
		}
	}

	/**
	 * Subscribe to the queues' notifications. When Redis cannot be reached (down at
	 * start), the workers look every poll interval, and the subscription is made again
	 * after the next claim that reaches Redis ({@link #redisReached()}). Every
	 * subscription (also one Lettuce makes again after a connection was lost) wakes the
	 * workers: notifications sent meanwhile were lost.
	 */
	private void subscribe() {
		try {
			this.notifications = NotificationSubscription.open(this.connectionFactory,
					List.of(this.queue.notificationChannel(), probeChannel()), new Notifications(),
					this.listeningThreads, this.connectGivenUp);
		}
		catch (RuntimeException ex) {
			if (this.stopping || !this.running) {
				// Given up by the shutdown (its wait interrupted): says nothing about
				// Redis.
				logger.debug("Gave up subscribing to queue notifications: the workers stopped", ex);
				return;
			}
			this.outages.failed(
					"subscription", "could not subscribe to queue notifications (workers look every "
							+ this.settings.pollInterval() + " until it succeeds, tried again once Redis answers)",
					redisFailure(ex));
		}
	}

	/**
	 * Return the Redis failure inside a failed subscription (the container wraps it in
	 * "Subscription attempts exceeded"), or the failure itself.
	 */
	private static Throwable redisFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof DataAccessException) {
				return cause;
			}
		}
		return failure;
	}

	/**
	 * A subscription that was made has lost its connection, or stopped hearing its
	 * probes, and is given up (not the first attempt of one, which {@link #subscribe()}
	 * handles): not listening any more. It is closed on a thread of its own, never the
	 * subscription thread: on Lettuce its connection is closed at once, but Spring Data's
	 * container (Jedis) closes it by unsubscribing, and a connection found deaf is
	 * released only when that is answered or when TCP gives it up (its listening thread
	 * ends then too); the new subscription does not wait for it.
	 */
	private void subscriptionLost(NotificationSubscription subscription) {
		synchronized (this.givingUp) {
			// (The probe and the container's recovery may both give it up.)
			if (this.notifications != subscription) {
				return;
			}
			this.notifications = null;
		}
		logger.debug("Queue notifications lost their connection; subscribing again once Redis answers");
		try {
			this.listeningThreads.execute(subscription::close);
		}
		catch (RuntimeException ex) {
			// Shutting down: stop() closes what is left.
		}
		redisReached();
	}

	/**
	 * A poller's claim reached Redis: subscribe (on the subscription thread) when an
	 * earlier subscription failed or was given up.
	 */
	private void redisReached() {
		if (this.notifications == null && this.running && !this.stopping) {
			subscribeLater();
		}
	}

	/**
	 * Over how many queues an idle instance spreads its looks (see
	 * {@code QueuePoller.idleMillis()}): all it polls while it hears their notifications;
	 * none while it does not (not subscribed: Redis was down at start, or the
	 * subscription failed), when each queue is looked at every poll interval.
	 */
	private int queuesSharingIdleLooks() {
		return (this.notifications != null) ? this.pollers.size() : 1;
	}

	private void wakeAll() {
		this.pollers.values().forEach(QueuePoller::wake);
	}

	/**
	 * The queues' notifications: each wakes its queue's poller; a subscription that came
	 * (back) wakes them all.
	 */
	private final class Notifications implements NotificationSubscription.Listener {

		@Override
		public void message(String channel, byte[] body) {
			if (!QueueWorkers.this.queue.notificationChannel().equals(channel)) {
				// This instance's probe came back: the subscription hears.
				try {
					QueueWorkers.this.probesHeard
						.accumulateAndGet(Long.parseLong(new String(body, StandardCharsets.UTF_8)), Math::max);
				}
				catch (NumberFormatException ex) {
					// Not a probe of ours.
				}
				return;
			}
			QueuePoller poller = QueueWorkers.this.pollers.get(new String(body, StandardCharsets.UTF_8));
			if (poller != null) {
				poller.wake();
			}
		}

		@Override
		public void subscribed(String channel) {
			// Once per subscription: for the notifications' channel, not the probes'.
			if (QueueWorkers.this.queue.notificationChannel().equals(channel)) {
				wakeAll();
			}
		}

		@Override
		public void lost(NotificationSubscription subscription) {
			subscriptionLost(subscription);
		}

	}

	/**
	 * Run a claimed task's method body and record the outcome.
	 */
	void run(Handler handler, TaskRun run) {
		RedisTaskQueue.ClaimedTask task = run.task();
		TaskVersion written = TaskVersion.parse(task.version());
		if (written.signature() != null && written.version() > handler.version().version()) {
			// Written for a later version of the method: never run here, even when its
			// payload happens to bind (a property this version does not know is dropped).
			defer(handler, run);
			return;
		}
		RunningTasks.entered(run);
		// The enqueuing code's logging context, also for the outcome's log lines.
		CallerContext.Scope context = CallerContext.restore(this.queue.json(), task.callerContext());
		// Its trace continues in the run.
		Observation observation = TaskObservations
			.run(this.queue.observations(), task.queue(), task.id(), task.attempt(), this.queue.observations().isNoop()
					? java.util.Map.of() : CallerContext.traceHeaders(this.queue.json(), task.callerContext()))
			.start();
		Observation.Scope traced = observation.openScope();
		try {
			@Nullable Object[] arguments = TaskArguments.read(this.queue.json(), handler.method(),
					migrated(task.queue(), handler.method(), written.version(), task.payload()));
			invoke(handler, arguments);
			if (settle(run, "ack", "")) {
				this.queue.observer().processed(task.queue(), "success");
			}
		}
		catch (Throwable failure) {
			boolean interrupted = Thread.currentThread().isInterrupted() || causedByInterrupt(failure);
			if (this.stopping && interrupted) {
				logger.info("Task '" + Printable.of(task.id()) + "' of queue '" + task.queue()
						+ "' stopped at shutdown; handing it back");
				settle(run, "release", "");
			}
			else {
				observation.error(failure);
				failed(handler, run, failure);
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		finally {
			traced.close();
			observation.stop();
			context.close();
			RunningTasks.exited();
		}
	}

	/**
	 * Return the payload after the application's {@link TaskPayloadMigration}s, in order.
	 */
	private String migrated(String queue, Method method, int version, String payload) {
		List<TaskPayloadMigration> migrations = this.migrations;
		if (migrations == null) {
			migrations = this.beanFactory.getBeanProvider(TaskPayloadMigration.class).orderedStream().toList();
			this.migrations = migrations;
		}
		String migrated = payload;
		for (TaskPayloadMigration migration : migrations) {
			migrated = migration.migrate(queue, method, version, migrated);
			Assert.state(migrated != null, () -> migration + " returned no payload for a task of queue '" + queue
					+ "'; return the payload it was given when it has nothing to change");
		}
		return migrated;
	}

	/**
	 * A claimed task could not be handed to a worker thread: it never ran. At shutdown
	 * its claim goes back (due now, the attempt not counted); otherwise the hand-off is a
	 * failed attempt like a failed run, retried after its backoff or dead-lettered once
	 * the attempts are used up, so a hand-off that always fails cannot hold a task
	 * forever.
	 */
	private void handOffFailed(Handler handler, TaskRun run, RuntimeException failure) {
		if (this.stopping) {
			settle(run, "release", "");
			return;
		}
		failed(handler, run, failure);
	}

	private static boolean causedByInterrupt(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException) {
				return true;
			}
		}
		return false;
	}

	private void invoke(Handler handler, @Nullable Object[] arguments) throws Throwable {
		Object bean = this.beanFactory.getBean(handler.beanName());
		Method method = this.invocable.computeIfAbsent(new Invocable(handler.method(), bean.getClass()), (key) -> {
			Method selected = AopUtils.selectInvocableMethod(key.method(), key.beanClass());
			// Beans are often package-private classes with public methods.
			ReflectionUtils.makeAccessible(selected);
			return selected;
		});
		WORKER_CALL.set(handler.method());
		try {
			method.invoke(bean, arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
		finally {
			WORKER_CALL.remove();
		}
	}

	private void failed(Handler handler, TaskRun run, Throwable failure) {
		RedisTaskQueue.ClaimedTask task = run.task();
		QueueSettings settings = handler.settings();
		String error = failure.getClass().getName() + ": " + failure.getMessage();
		boolean noRetry = handler.taskSettings().isNoRetry(failure);
		Mismatch mismatch = null;
		if (failure instanceof TaskArguments.PayloadMismatchException payloadMismatch) {
			mismatch = mismatch(handler, task, payloadMismatch);
			noRetry = mismatch == Mismatch.CANNOT_RUN;
		}
		if (noRetry || task.attempt() >= settings.maxAttempts()) {
			Map<String, Object> details = new java.util.LinkedHashMap<>();
			details.put("error", error);
			details.put("attempts", task.attempt());
			if (mismatch != null) {
				details.put("reason", TaskArguments.PayloadMismatchException.REASON);
				details.put("method", handler.method().toGenericString());
			}
			if (!task.version().isEmpty()) {
				details.put("version", task.version());
			}
			String info = this.queue.json().writeValueAsString(details);
			if (settle(run, "dead", info)) {
				logger.error("Task '" + Printable.of(task.id()) + "' of queue '" + Printable.of(task.queue())
						+ "' failed "
						+ ((mismatch != null) ? task.attempt() + " time(s) because its payload (version "
								+ TaskVersion.parse(task.version()).version() + ") does not fit "
								+ handler.method().toGenericString() + " (version " + handler.version().version()
								+ ") (payload-mismatch: see 'Evolving a task' in docs/queue.md)"
								: noRetry ? "with an error it is never retried for (noRetryFor)"
										: task.attempt() + " times")
						+ "; moved to the dead letters", Printable.failure(failure));
				this.queue.observer().processed(task.queue(), "dead");
				failed(task.queue(), task.id(), task.attempt(), failure, true);
			}
		}
		else {
			long backoff = settings.backoff(task.attempt()).toMillis();
			if (settle(run, "retry", Long.toString(backoff))) {
				logger.warn(
						"Task '" + Printable.of(task.id()) + "' of queue '" + Printable.of(task.queue())
								+ "' failed (attempt " + task.attempt() + " of " + settings.maxAttempts()
								+ "); retrying in " + backoff + "ms: " + Printable.of(error)
								+ ((mismatch == Mismatch.UNKNOWN_WRITER && !task.version().isEmpty())
										? " (its payload was written for other parameters of the same version "
												+ handler.version().version()
												+ ": raise @QueuedTask(version) when a method's parameters change)"
										: ""));
				this.queue.observer().processed(task.queue(), "retry");
				failed(task.queue(), task.id(), task.attempt(), failure, false);
			}
		}
	}

	/**
	 * What a payload that does not bind to the method tells.
	 */
	private enum Mismatch {

		/**
		 * Written by a method of unknown parameters (none recorded, or the same version
		 * with other parameters): another instance may run it, so it is retried.
		 */
		UNKNOWN_WRITER,

		/**
		 * Not a JSON array, or written for this version or an earlier one: no instance of
		 * this version or a later one can read it, so no retry can help.
		 */
		CANNOT_RUN

	}

	private static Mismatch mismatch(Handler handler, RedisTaskQueue.ClaimedTask task,
			TaskArguments.PayloadMismatchException failure) {
		if (failure.isPermanent()) {
			return Mismatch.CANNOT_RUN;
		}
		TaskVersion written = TaskVersion.parse(task.version());
		TaskVersion ours = handler.version();
		if (written.signature() == null) {
			return Mismatch.UNKNOWN_WRITER;
		}
		// (A later version's task never gets here: run() hands it back unread.)
		if (written.version() >= ours.version() && !written.signature().equals(ours.signature())) {
			return Mismatch.UNKNOWN_WRITER;
		}
		return Mismatch.CANNOT_RUN;
	}

	/**
	 * A task written for a later version of its method than this instance runs (a rolling
	 * deploy under way): handed back to waiting without spending an attempt, for an
	 * instance of that version, due again after a poll interval, doubled with each
	 * hand-back of the task up to {@link #MAX_DEFER} (after a rollback, the earlier
	 * instances claim it ever less often).
	 */
	private void defer(Handler handler, TaskRun run) {
		RedisTaskQueue.ClaimedTask task = run.task();
		long base = handler.settings().pollInterval().toMillis();
		if (settle(run, "defer", base + ":" + Math.max(base, MAX_DEFER.toMillis()))) {
			int version = TaskVersion.parse(task.version()).version();
			String message = "Task '" + Printable.of(task.id()) + "' of queue '" + Printable.of(task.queue())
					+ "' was written for version " + version + " of its method, and this instance runs version "
					+ handler.version().version() + " (" + handler.method().toGenericString()
					+ "): handed back (no attempt spent) for an instance of version " + version + " to run";
			if (this.deferredVersions.add(task.queue() + ":" + version)) {
				logger.info(message + " (said once per queue and version)");
			}
			else if (logger.isDebugEnabled()) {
				logger.debug(message);
			}
		}
	}

	/**
	 * Publish a {@link TaskFailedEvent} on the event thread.
	 */
	void failed(String queueName, String id, int attempt, Throwable error, boolean deadLettered) {
		ApplicationEventPublisher events = this.events;
		if (events == null) {
			return;
		}
		TaskFailedEvent event = new TaskFailedEvent(this, queueName, id, attempt, error, deadLettered);
		try {
			this.eventThread.execute(() -> {
				try {
					events.publishEvent(event);
				}
				catch (RuntimeException ex) {
					logger.warn("A TaskFailedEvent listener failed for task '" + Printable.of(id) + "' of queue '"
							+ Printable.of(queueName) + "'", Printable.failure(ex));
				}
			});
		}
		catch (RuntimeException ex) {
			logger.debug("TaskFailedEvent not published (shutting down): " + event, ex);
		}
	}

	private Acknowledgements acknowledgements(String queueName) {
		return this.acknowledgements.computeIfAbsent(queueName, (name) -> new Acknowledgements(this.queue, name,
				this.settings.deadLetterMaxSize(), this.settings.deadLetterMaxAge()));
	}

	/**
	 * Record a task's outcome, if this worker still holds its claim. Runs with the
	 * thread's interrupt flag cleared (an interrupted thread cannot wait for Redis's
	 * answer) and restores it.
	 * @return whether the outcome was recorded
	 */
	private boolean settle(TaskRun run, String action, String argument) {
		RedisTaskQueue.ClaimedTask task = run.task();
		// From now on its outcome, not a renewal, tells whether the claim held.
		run.settling();
		boolean interrupted = Thread.interrupted();
		try {
			boolean settled = action.equals("ack") ? acknowledgements(task.queue()).acknowledge(task)
					: this.queue.settle(task.queue(), action, argument, this.settings.deadLetterMaxSize(),
							this.settings.deadLetterMaxAge(), List.of(task))[0];
			if (!settled) {
				QueuePoller.claimLost(this.queue, run,
						"another worker claimed it after its visibility timeout passed without a renewal");
				logger.debug("Outcome (" + action + ") of task '" + Printable.of(task.id()) + "' of queue '"
						+ task.queue() + "' dropped: its claim was lost");
			}
			return settled;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record the outcome (" + action + ") of task '" + Printable.of(task.id())
					+ "' of queue '" + task.queue() + "'; it runs again after its visibility timeout", ex);
			return false;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void stop() {
		this.running = false;
		this.stopping = true;
		this.probeChain.incrementAndGet();
		ScheduledFuture<?> probing = this.probing;
		if (probing != null) {
			probing.cancel(false);
		}
		NotificationSubscription notifications = this.notifications;
		if (notifications != null) {
			this.notifications = null;
			notifications.close();
		}
		long deadline = System.nanoTime() + this.settings.shutdownTimeout().toNanos();
		this.pollers.values().forEach(QueuePoller::stopTaking);
		List<QueuePoller> unfinished = new ArrayList<>();
		for (QueuePoller poller : this.pollers.values()) {
			if (!poller.awaitRunning(deadline)) {
				unfinished.add(poller);
			}
		}
		unfinished.forEach(QueuePoller::interruptRunning);
		long grace = System.nanoTime() + INTERRUPT_GRACE_NANOS;
		for (QueuePoller poller : unfinished) {
			if (!poller.awaitRunning(grace)) {
				logger.warn(poller.runningTasks().size() + " task(s) of queue '" + poller.queueName()
						+ "' did not stop when interrupted at shutdown; their claims are no longer renewed and"
						+ " another instance runs them once their visibility timeout has passed");
			}
		}
		this.pollers.values().forEach(QueuePoller::stopRenewing);
		this.pollers.clear();
	}

	/**
	 * Stop the event thread once the last events are handed over.
	 */
	@Override
	public void destroy() {
		this.probeThread.shutdown();
		this.subscriptionThread.shutdown();
		this.listeningThreads.shutdown();
		this.eventThread.shutdown();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	record Handler(String beanName, Method method, TaskSettings taskSettings, QueueSettings settings,
			TaskVersion version) {
	}

	/**
	 * A handler method on the class of the bean that runs it (a proxy's, say).
	 */
	private record Invocable(Method method, Class<?> beanClass) {
	}

}
