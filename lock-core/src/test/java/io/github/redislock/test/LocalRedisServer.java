package io.github.redislock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.opentest4j.TestAbortedException;

import org.springframework.util.FileSystemUtils;

/**
 * A {@code redis-server} process on a free loopback port, without persistence (but see
 * {@link #restartKeepingData()}), stopped through its own process handle.
 */
public final class LocalRedisServer extends RedisServer {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

	/** The running process: replaced by {@link #restartKeepingData()}. */
	private volatile Process process;

	private final List<String> command;

	private final int port;

	private final Path directory;

	private final String binary;

	private final String[] arguments;

	private LocalRedisServer(Process process, List<String> command, int port, Path directory, String binary,
			String[] arguments) {
		this.process = process;
		this.command = command;
		this.port = port;
		this.directory = directory;
		this.binary = binary;
		this.arguments = arguments;
	}

	/**
	 * Start a server; extra {@code redis-server} arguments may follow.
	 */
	public static LocalRedisServer start(String... extraArguments) {
		return startProgram(RedisBinary.path(), extraArguments);
	}

	/**
	 * Return the program of a server of the matrix that {@code .ci/build-servers} built
	 * ({@code "valkey-9"}, {@code "redis-8"}), or empty when it was not built.
	 */
	public static Optional<String> builtServer(String name) {
		try {
			return Optional.of(RedisBinary.cached(name, RedisBinary.cache(), false));
		}
		catch (TestAbortedException ex) {
			return Optional.empty();
		}
	}

	/**
	 * Start a server from the given {@code redis-server} program.
	 */
	public static LocalRedisServer startProgram(String binary, String... extraArguments) {
		IOException last = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			int port = freePort();
			try {
				LocalRedisServer server = tryStart(binary, port, extraArguments);
				if (server != null) {
					return server;
				}
			}
			catch (IOException ex) {
				last = ex;
			}
		}
		throw new IllegalStateException("Could not start redis-server (" + binary + "): install it (Debian:"
				+ " apt-get install -y redis-server), set REDIS_SERVER to its path, or set REDIS_URL", last);
	}

	/**
	 * Start a Sentinel on a free loopback port that monitors the given master.
	 */
	public static LocalRedisServer startSentinel(String masterName, int masterPort, int quorum) {
		for (int attempt = 0; attempt < 5; attempt++) {
			int port = freePort();
			try {
				Path directory = Files.createTempDirectory("redislock-test-sentinel-");
				Path config = directory.resolve("sentinel.conf");
				Files.writeString(config,
						String.join("\n", "port " + port, "bind 127.0.0.1", "dir " + directory,
								"sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " " + quorum,
								"sentinel down-after-milliseconds " + masterName + " 1000",
								"sentinel failover-timeout " + masterName + " 5000",
								"sentinel parallel-syncs " + masterName + " 1", ""));
				LocalRedisServer server = launch(List.of(RedisBinary.path(), config.toString(), "--sentinel"), port,
						directory, RedisBinary.path(), new String[0]);
				if (server != null) {
					return server;
				}
			}
			catch (IOException ex) {
				// try another port
			}
		}
		throw new IllegalStateException("Could not start a Redis Sentinel");
	}

	private static LocalRedisServer tryStart(String binary, int port, String... extraArguments) throws IOException {
		Path directory = Files.createTempDirectory("redislock-test-redis-");
		List<String> command = new ArrayList<>(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.toString()));
		command.addAll(List.of(extraArguments));
		return launch(command, port, directory, binary, extraArguments);
	}

	private static LocalRedisServer launch(List<String> command, int port, Path directory, String binary,
			String[] extraArguments) throws IOException {
		Process process = startProcess(command, port, directory);
		if (process == null) {
			// Most often the port was taken between our probe and the start.
			FileSystemUtils.deleteRecursively(directory);
			return null;
		}
		LocalRedisServer server = new LocalRedisServer(process, command, port, directory, binary, extraArguments);
		Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
		return server;
	}

	/**
	 * Start the process and wait until it answers PING.
	 * @return the process, or {@code null} when it died at once (the port not free)
	 */
	private static Process startProcess(List<String> command, int port, Path directory) throws IOException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("redis.log").toFile()))
			.start();
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				return null;
			}
			if (answersPing(port)) {
				return process;
			}
			sleepBriefly();
		}
		process.destroyForcibly();
		throw new IOException("redis-server did not answer PING on port " + port + " within " + START_TIMEOUT);
	}

	/**
	 * Restart the server as an operator would, without losing a write: {@code SHUTDOWN
	 * SAVE} (every command it ran is in the snapshot; connections close, commands not yet
	 * read are lost to the clients that sent them), then the same program with the same
	 * arguments on the same port and directory, which loads the snapshot (and, in a
	 * cluster, its node configuration). It comes back without its script cache. Returns
	 * once it answers PING.
	 */
	public synchronized void restartKeepingData() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 1000);
			socket.setSoTimeout(10_000);
			OutputStream out = socket.getOutputStream();
			out.write("SHUTDOWN SAVE\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			// No answer when it shuts down: the connection closes.
			String answer = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
				.readLine();
			if (answer != null) {
				throw new IllegalStateException("SHUTDOWN SAVE refused by " + this + ": " + answer);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not shut down " + this, ex);
		}
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException(this + " did not stop after SHUTDOWN SAVE");
			}
			for (int attempt = 0; attempt < 100; attempt++) {
				Process started = startProcess(this.command, this.port, this.directory);
				if (started != null) {
					this.process = started;
					return;
				}
				// The port may not be free yet.
				Thread.sleep(20);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not restart " + this, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while restarting " + this, ex);
		}
		throw new IllegalStateException("Could not restart " + this + " on its port");
	}

	static boolean answersPing(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			return "+PONG".equals(in.readLine());
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void sleepBriefly() {
		try {
			Thread.sleep(10);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
		}
	}

	@Override
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public int port() {
		return this.port;
	}

	/**
	 * Return the process id, for tests that signal the server.
	 */
	public long pid() {
		return this.process.pid();
	}

	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Kill the process at once (SIGKILL), as a crash would.
	 */
	public void kill() {
		Signals.killNow(this.process);
	}

	/**
	 * Start a new, empty server on the same port (after {@link #kill()}).
	 */
	public LocalRedisServer restart() {
		for (int attempt = 0; attempt < 50; attempt++) {
			try {
				LocalRedisServer server = tryStart(this.binary, this.port, this.arguments);
				if (server != null) {
					return server;
				}
			}
			catch (IOException ex) {
				// the port may not be free yet
			}
			sleepBriefly();
		}
		throw new IllegalStateException("Could not restart " + this);
	}

	/**
	 * Start a new, empty server from the same program with the same arguments on another
	 * free port (a replacement for this one).
	 */
	public LocalRedisServer startAnother() {
		return startProgram(this.binary, this.arguments);
	}

	/**
	 * Freeze the process (SIGSTOP): it keeps its connections but answers nothing.
	 */
	public void pause() {
		signal("STOP");
	}

	/**
	 * Let a frozen process go on (SIGCONT).
	 */
	public void resume() {
		signal("CONT");
	}

	/**
	 * Close the connections of every client in pub/sub mode
	 * ({@code CLIENT KILL TYPE pubsub}), as a proxy or a network blip might.
	 * @return how many were closed
	 */
	public long killPubSubClients() {
		io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
		try (io.lettuce.core.api.StatefulRedisConnection<String, String> connection = client
			.connect(io.lettuce.core.RedisURI.create(host(), this.port))) {
			return connection.sync().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	private void signal(String signal) {
		Signals.send(this.process.pid(), signal);
	}

	@Override
	protected synchronized void stop() {
		if (this.process.isAlive()) {
			this.process.destroy();
			try {
				if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
					this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				this.process.destroyForcibly();
				Thread.currentThread().interrupt();
			}
		}
		FileSystemUtils.deleteRecursively(this.directory.toFile());
	}

	@Override
	public String toString() {
		return "redis-server pid " + this.process.pid() + " on port " + this.port;
	}

}
