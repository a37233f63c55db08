package io.github.redislock.queue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.ReflectionUtils;

/**
 * Runs the {@code @QueuedTask} methods of this instance: one {@link QueuePoller} per
 * queue with {@link QueueSettings#workers()} concurrent tasks, woken by enqueue
 * notifications and otherwise looking every poll interval; one timer that renews the
 * visibility of all running tasks, one script call per queue per tick.
 * <p>
 * Delivery is at-least-once. On {@link #stop()} the pollers stop taking tasks, running
 * tasks may finish within the shutdown timeout, and the claims of those that do not are
 * handed back to ready at once.
 */
public final class QueueWorkers implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(QueueWorkers.class);

	private static final ThreadLocal<Boolean> WORKER_CALL = new ThreadLocal<>();

	private final RedisTaskQueue queue;

	private final QueueSettings settings;

	private final RedisConnectionFactory connectionFactory;

	private final BeanFactory beanFactory;

	private final String instanceId = UUID.randomUUID().toString();

	private final Map<String, QueuePoller> pollers = new ConcurrentHashMap<>();

	private final Map<String, Handler> handlers = new ConcurrentHashMap<>();

	private volatile @Nullable ScheduledExecutorService renewer;

	private volatile @Nullable RedisMessageListenerContainer notifications;

	private volatile boolean running;

	public QueueWorkers(RedisTaskQueue queue, QueueSettings settings, RedisConnectionFactory connectionFactory,
			BeanFactory beanFactory) {
		this.queue = queue;
		this.settings = settings;
		this.connectionFactory = connectionFactory;
		this.beanFactory = beanFactory;
	}

	/**
	 * Return whether the current thread is a worker running a task's method body, which
	 * the {@code @QueuedTask} advice then lets through instead of enqueueing it again.
	 */
	public static boolean isWorkerCall() {
		return Boolean.TRUE.equals(WORKER_CALL.get());
	}

	/**
	 * Register the {@code @QueuedTask} method that handles a queue.
	 * @param queueName the queue
	 * @param beanName the bean whose method it is (called through its proxy)
	 * @param method the method
	 */
	public void register(String queueName, String beanName, Method method) {
		Handler previous = this.handlers.putIfAbsent(queueName, new Handler(beanName, method));
		if (previous != null && !previous.method().equals(method)) {
			throw new IllegalStateException("Queue '" + queueName + "' is handled by both " + previous.method()
					+ " and " + method + "; give each @QueuedTask method its own queue");
		}
	}

	public QueueSettings getSettings() {
		return this.settings;
	}

	/**
	 * Return the queues that have a handler on this instance.
	 */
	public List<String> getQueueNames() {
		return new ArrayList<>(this.handlers.keySet());
	}

	@Override
	public void start() {
		this.running = true;
		if (this.settings.workers() == 0 || this.handlers.isEmpty()) {
			return;
		}
		for (Map.Entry<String, Handler> entry : this.handlers.entrySet()) {
			QueuePoller poller = new QueuePoller(entry.getKey(), this.queue, this.settings, this.instanceId,
					(task) -> run(entry.getValue(), task));
			this.pollers.put(entry.getKey(), poller);
			poller.start();
		}
		subscribe();
		ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redislock-queue-renewer");
			thread.setDaemon(true);
			return thread;
		});
		long period = Math.max(10, this.settings.visibilityTimeout().toMillis() / 3);
		renewer.scheduleAtFixedRate(this::renewRunningTasks, period, period, TimeUnit.MILLISECONDS);
		this.renewer = renewer;
	}

	private void subscribe() {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(this.connectionFactory);
		container.setTaskExecutor(new SyncTaskExecutor());
		container.addMessageListener((message, pattern) -> {
			QueuePoller poller = this.pollers.get(new String(message.getBody(), StandardCharsets.UTF_8));
			if (poller != null) {
				poller.wake();
			}
		}, new ChannelTopic(this.queue.notificationChannel()));
		container.afterPropertiesSet();
		try {
			container.start();
			this.notifications = container;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not subscribe to queue notifications; workers look every " + this.settings.pollInterval()
					+ " instead", ex);
		}
	}

	private void renewRunningTasks() {
		for (QueuePoller poller : this.pollers.values()) {
			List<RedisTaskQueue.ClaimedTask> tasks = poller.runningTasks();
			if (tasks.isEmpty()) {
				continue;
			}
			try {
				this.queue.settle(poller.queueName(), "extend",
						Long.toString(this.settings.visibilityTimeout().toMillis()), 0,
						this.settings.deadLetterMaxAge(), tasks);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not renew the visibility of " + tasks.size() + " running task(s) of queue '"
						+ poller.queueName() + "': " + ex);
			}
		}
	}

	private void run(Handler handler, RedisTaskQueue.ClaimedTask task) {
		try {
			@Nullable Object[] arguments = TaskArguments.read(this.queue.json(), handler.method(), task.payload());
			invoke(handler, arguments);
			settle(task, "ack", "");
			this.queue.observer().processed(task.queue(), "success");
		}
		catch (Throwable failure) {
			if (failure instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			failed(task, failure);
		}
	}

	private void invoke(Handler handler, @Nullable Object[] arguments) throws Throwable {
		Object bean = this.beanFactory.getBean(handler.beanName());
		Method method = AopUtils.selectInvocableMethod(handler.method(), bean.getClass());
		// Beans are often package-private classes with public methods.
		ReflectionUtils.makeAccessible(method);
		WORKER_CALL.set(Boolean.TRUE);
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

	private void failed(RedisTaskQueue.ClaimedTask task, Throwable failure) {
		String error = failure.getClass().getName() + ": " + failure.getMessage();
		if (task.attempt() >= this.settings.maxAttempts()) {
			logger.error("Task '" + task.id() + "' of queue '" + task.queue() + "' failed " + task.attempt()
					+ " times; moved to the dead letters", failure);
			String info = this.queue.json().writeValueAsString(Map.of("error", error, "attempts", task.attempt()));
			settle(task, "dead", info);
			this.queue.observer().processed(task.queue(), "dead");
		}
		else {
			long backoff = this.settings.backoff(task.attempt()).toMillis();
			logger.warn("Task '" + task.id() + "' of queue '" + task.queue() + "' failed (attempt " + task.attempt()
					+ " of " + this.settings.maxAttempts() + "); retrying in " + backoff + "ms: " + error);
			settle(task, "retry", Long.toString(backoff));
			this.queue.observer().processed(task.queue(), "retry");
		}
	}

	private void settle(RedisTaskQueue.ClaimedTask task, String action, String argument) {
		try {
			boolean[] settled = this.queue.settle(task.queue(), action, argument, this.settings.deadLetterMaxSize(),
					this.settings.deadLetterMaxAge(), List.of(task));
			if (!settled[0]) {
				logger.warn("Task '" + task.id() + "' of queue '" + task.queue() + "' was claimed by another worker"
						+ " meanwhile (its visibility timeout passed); its outcome here is dropped");
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record the outcome of task '" + task.id() + "' of queue '" + task.queue()
					+ "'; it runs again after its visibility timeout", ex);
		}
	}

	@Override
	public void stop() {
		this.running = false;
		RedisMessageListenerContainer notifications = this.notifications;
		if (notifications != null) {
			try {
				notifications.destroy();
			}
			catch (Exception ex) {
				logger.debug("Could not close queue notifications", ex);
			}
			this.notifications = null;
		}
		long deadline = System.nanoTime() + this.settings.shutdownTimeout().toNanos();
		this.pollers.values().forEach(QueuePoller::stopTaking);
		for (QueuePoller poller : this.pollers.values()) {
			List<RedisTaskQueue.ClaimedTask> unfinished = poller.awaitRunning(deadline);
			if (!unfinished.isEmpty()) {
				logger.warn(unfinished.size() + " task(s) of queue '" + poller.queueName()
						+ "' did not finish within the shutdown timeout; handing them back");
				try {
					this.queue.settle(poller.queueName(), "release", "", 0, this.settings.deadLetterMaxAge(),
							unfinished);
				}
				catch (RuntimeException ex) {
					logger.warn("Could not hand back unfinished tasks; they run again after their visibility timeout",
							ex);
				}
			}
			poller.shutdownNow();
		}
		this.pollers.clear();
		ScheduledExecutorService renewer = this.renewer;
		if (renewer != null) {
			renewer.shutdownNow();
			this.renewer = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	private record Handler(String beanName, Method method) {
	}

}
