package io.github.redislock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A TCP proxy on a free loopback port between clients and one Redis server, for network
 * faults: it can delay requests or replies, swallow replies (the command runs, the client
 * never hears), black-hole everything or only the pub/sub connections, cut every
 * connection, and refuse new ones. It also counts the commands clients send through it
 * ({@link #requests()}): what a client costs in requests, as opposed to the commands
 * Redis runs inside scripts.
 * <p>
 * Each direction of each connection is copied by its own thread; a delay holds each chunk
 * back before it is passed on, so order is kept.
 */
public final class TcpProxy implements RedisTarget, AutoCloseable {

	private final RedisServer target;

	private final ServerSocket listener;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private final ConnectionFactories factories = new ConnectionFactories();

	private final AtomicLong connections = new AtomicLong();

	private final AtomicLong requests = new AtomicLong();

	private volatile long requestDelayNanos;

	private volatile long replyDelayNanos;

	private volatile boolean dropReplies;

	private volatile boolean blackHole;

	private volatile boolean refuse;

	private volatile boolean silenceNew;

	private volatile boolean silenceSubscribing;

	/** Both sockets of every connection that subscribed to a channel. */
	private final Set<Socket> subscribers = ConcurrentHashMap.newKeySet();

	/** Sockets whose traffic is swallowed, whatever else happens. */
	private final Set<Socket> silenced = ConcurrentHashMap.newKeySet();

	private TcpProxy(RedisServer target) throws IOException {
		this.target = target;
		this.listener = new ServerSocket();
		this.listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
		Thread acceptor = new Thread(this::accept, "tcp-proxy-" + port());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Start a proxy in front of {@code target}.
	 */
	public static TcpProxy to(RedisServer target) {
		try {
			return new TcpProxy(target);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start a TCP proxy", ex);
		}
	}

	public String host() {
		return "127.0.0.1";
	}

	public int port() {
		return this.listener.getLocalPort();
	}

	/**
	 * Return a new, started connection factory that talks to Redis through this proxy.
	 */
	@Override
	public LettuceConnectionFactory connectionFactory() {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(host(), port());
		if (this.target.password() != null) {
			configuration.setPassword(this.target.password());
		}
		return this.factories.start(new LettuceConnectionFactory(configuration));
	}

	/**
	 * Hold every chunk from clients back this long before it reaches Redis.
	 */
	public void delayRequests(Duration delay) {
		this.requestDelayNanos = delay.toNanos();
	}

	/**
	 * Hold every chunk from Redis back this long before it reaches the client.
	 */
	public void delayReplies(Duration delay) {
		this.replyDelayNanos = delay.toNanos();
	}

	/**
	 * Pass requests on but swallow the replies: commands run, clients never hear.
	 */
	public void dropReplies() {
		this.dropReplies = true;
	}

	/**
	 * Swallow everything in both directions, keeping the connections open, as a network
	 * that silently loses all packets does.
	 */
	public void blackHole() {
		this.blackHole = true;
	}

	/**
	 * Swallow everything, in both directions and for good, on the connections that
	 * subscribed to a channel so far, keeping them open: a pub/sub connection gone
	 * half-open behind a load balancer. Other connections, and new ones, pass.
	 */
	public void silenceSubscribers() {
		this.silenced.addAll(this.subscribers);
	}

	/**
	 * Swallow everything, in both directions, on the connections accepted from now on,
	 * keeping them open: a connection that opens but whose handshake is never answered.
	 * The connections open so far pass.
	 */
	public void silenceNewConnections() {
		this.silenceNew = true;
	}

	/**
	 * Swallow everything, in both directions and for good, on each connection from the
	 * next SUBSCRIBE it sends on, keeping it open: its handshake passes, its subscription
	 * is never answered. Until {@link #heal()}.
	 */
	public void silenceSubscribing() {
		this.silenceSubscribing = true;
	}

	/**
	 * Return how many of the connections swallowed so far are still open (both sockets of
	 * each counted).
	 */
	public long openSilencedSockets() {
		return this.silenced.stream().filter((socket) -> !socket.isClosed()).count();
	}

	/**
	 * Refuse new connections (accept and close them at once).
	 */
	public void refuseConnections() {
		this.refuse = true;
	}

	/**
	 * Undo every fault: no delay, nothing swallowed, connections accepted.
	 */
	public void heal() {
		this.requestDelayNanos = 0;
		this.replyDelayNanos = 0;
		this.dropReplies = false;
		this.blackHole = false;
		this.refuse = false;
		this.silenceNew = false;
		this.silenceSubscribing = false;
	}

	/**
	 * Close every open connection, as a network cut or a restarted router does.
	 */
	public void cutConnections() {
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
		this.sockets.clear();
	}

	/**
	 * Close every open connection but those that subscribed to a channel.
	 */
	public void cutCommandConnections() {
		cut(false);
	}

	/**
	 * Close the open connections that subscribed to a channel, and no other.
	 */
	public void cutSubscriberConnections() {
		cut(true);
	}

	private void cut(boolean subscribers) {
		for (Socket socket : this.sockets) {
			if (this.subscribers.contains(socket) == subscribers) {
				closeQuietly(socket);
				this.sockets.remove(socket);
			}
		}
	}

	/**
	 * Return how many commands (RESP arrays) clients have sent through the proxy so far.
	 */
	public long requests() {
		return this.requests.get();
	}

	/**
	 * Return how many client connections the proxy has accepted so far.
	 */
	public long acceptedConnections() {
		return this.connections.get();
	}

	private void accept() {
		while (!this.listener.isClosed()) {
			try {
				Socket client = this.listener.accept();
				if (this.refuse) {
					closeQuietly(client);
					continue;
				}
				this.connections.incrementAndGet();
				Socket server;
				try {
					server = new Socket(this.target.host(), this.target.port());
				}
				catch (IOException ex) {
					// Redis not reachable (restarting, say): the client sees its
					// connection
					// close, rather than one that never answers.
					closeQuietly(client);
					continue;
				}
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(server);
				if (this.silenceNew) {
					this.silenced.add(client);
					this.silenced.add(server);
				}
				pipe(client, server, true);
				pipe(server, client, false);
			}
			catch (IOException ex) {
				// The listener closed.
			}
		}
	}

	private void pipe(Socket from, Socket to, boolean requests) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16384];
			RequestCounter counter = requests ? new RequestCounter() : null;
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					long delay = requests ? this.requestDelayNanos : this.replyDelayNanos;
					if (delay > 0) {
						TimeUnit.NANOSECONDS.sleep(delay);
					}
					if (requests && new String(buffer, 0, read, StandardCharsets.US_ASCII).contains("SUBSCRIBE\r\n")) {
						this.subscribers.add(from);
						this.subscribers.add(to);
						if (this.silenceSubscribing) {
							this.silenced.add(from);
							this.silenced.add(to);
						}
					}
					if (this.blackHole || this.silenced.contains(from) || (!requests && this.dropReplies)) {
						continue;
					}
					if (counter != null) {
						counter.feed(buffer, read);
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// Connection closed or cut.
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
			}
		}, "tcp-proxy-" + (requests ? "requests" : "replies"));
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * Follows the RESP request stream of one connection (arrays of bulk strings) and
	 * counts the arrays.
	 */
	private final class RequestCounter {

		private final StringBuilder line = new StringBuilder();

		private long skip;

		private long bulksLeft;

		void feed(byte[] bytes, int length) {
			for (int i = 0; i < length; i++) {
				if (this.skip > 0) {
					long skipped = Math.min(this.skip, length - i);
					this.skip -= skipped;
					i += (int) skipped - 1;
					continue;
				}
				char c = (char) bytes[i];
				if (c == '\n') {
					header(this.line.toString());
					this.line.setLength(0);
				}
				else if (c != '\r') {
					this.line.append(c);
				}
			}
		}

		private void header(String header) {
			if (header.startsWith("*") && this.bulksLeft == 0) {
				TcpProxy.this.requests.incrementAndGet();
				this.bulksLeft = Long.parseLong(header.substring(1));
			}
			else if (header.startsWith("$")) {
				this.skip = Long.parseLong(header.substring(1)) + 2;
				this.bulksLeft--;
			}
			else if (!header.isEmpty() && this.bulksLeft == 0) {
				// An inline command.
				TcpProxy.this.requests.incrementAndGet();
			}
		}

	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// already closed
		}
	}

	@Override
	public void close() {
		this.factories.close();
		try {
			this.listener.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		cutConnections();
	}

	@Override
	public String toString() {
		return "TCP proxy on " + port() + " to " + this.target;
	}

}
