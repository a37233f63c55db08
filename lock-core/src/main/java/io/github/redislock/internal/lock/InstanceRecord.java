package io.github.redislock.internal.lock;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * This lock template's instance record in Redis ({@link LockKeys#instanceKey(String)}):
 * host, process id and application name, so that {@code RedisLock.holder()} on any
 * instance can say who holds a lock. Written once, then refreshed on the template's
 * scheduler well within its time to live; the acquire path does nothing for it (owner ids
 * start with the instance id).
 */
final class InstanceRecord {

	private static final Log logger = LogFactory.getLog(InstanceRecord.class);

	static final Duration TTL = Duration.ofSeconds(30);

	static final Duration REFRESH = Duration.ofSeconds(10);

	private final String instanceId;

	private final List<LockCommands> servers;

	private final TaskScheduler scheduler;

	private final Executor io;

	private volatile String application = "";

	private volatile boolean closed;

	private volatile String host = "";

	/**
	 * @param scheduler times the refreshes
	 * @param io makes the calls to each server (a server that does not answer never
	 * delays the scheduler's other work)
	 */
	InstanceRecord(String instanceId, List<LockCommands> servers, TaskScheduler scheduler, Executor io) {
		this.instanceId = instanceId;
		this.servers = servers;
		this.scheduler = scheduler;
		this.io = io;
		scheduler.scheduleAtFixedRate(this::refresh, Instant.now(), REFRESH);
	}

	/**
	 * Set the application name written to the record, and write it at once.
	 */
	void setApplication(String application) {
		this.application = application;
		this.scheduler.schedule(this::refresh, Instant.now());
	}

	private void refresh() {
		if (this.closed) {
			return;
		}
		if (this.host.isEmpty()) {
			this.host = hostName();
		}
		for (LockCommands server : this.servers) {
			try {
				this.io.execute(() -> register(server));
			}
			catch (RuntimeException ex) {
				logger.debug("Could not refresh this instance's record (shutting down?)", ex);
			}
		}
	}

	private void register(LockCommands server) {
		try {
			server.registerInstance(this.instanceId, TTL, this.host, ProcessHandle.current().pid(), this.application);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not write this instance's record for holder lookups; trying again in " + REFRESH, ex);
		}
	}

	private static String hostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "unknown";
		}
	}

	/**
	 * Stop refreshing and remove the record (best effort: it expires anyway).
	 */
	void close() {
		this.closed = true;
		for (LockCommands server : this.servers) {
			try {
				server.unregisterInstance(this.instanceId);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not remove this instance's record; it expires within " + TTL, ex);
			}
		}
	}

}
