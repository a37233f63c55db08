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

	/** The certificates when the server speaks TLS only, else {@code null}. */
	private final TestCertificates tls;

	private LocalRedisServer(Process process, List<String> command, int port, Path directory, String binary,
			String[] arguments, TestCertificates tls) {
		this.tls = tls;
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
		return startProgram(binary, null, extraArguments);
	}

	/**
	 * Start a server that speaks TLS only ({@code --port 0}, {@code --tls-port} a free
	 * loopback port) with the given certificates; clients are not asked for one. Extra
	 * {@code redis-server} arguments may follow.
	 */
	public static LocalRedisServer startTls(TestCertificates certificates, String... extraArguments) {
		return startProgram(RedisBinary.path(), certificates, extraArguments);
	}

	private static LocalRedisServer startProgram(String binary, TestCertificates tls, String... extraArguments) {
		IOException last = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			int port = freePort();
			try {
				LocalRedisServer server = tryStart(binary, tls, port, extraArguments);
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
						directory, RedisBinary.path(), new String[0], null);
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

	private static LocalRedisServer tryStart(String binary, TestCertificates tls, int port, String... extraArguments)
			throws IOException {
		Path directory = Files.createTempDirectory("redislock-test-redis-");
		List<String> command = new ArrayList<>(List.of(binary));
		if (tls != null) {
			command.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port)));
			command.addAll(tls.serverArguments());
		}
		else {
			command.addAll(List.of("--port", Integer.toString(port)));
		}
		command.addAll(List.of("--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir",
				directory.toString()));
		command.addAll(List.of(extraArguments));
		return launch(command, port, directory, binary, extraArguments, tls);
	}

	private static LocalRedisServer launch(List<String> command, int port, Path directory, String binary,
			String[] extraArguments, TestCertificates tls) throws IOException {
		Process process = startProcess(command, port, directory, tls);
		if (process == null) {
			// Most often the port was taken between our probe and the start.
			FileSystemUtils.deleteRecursively(directory);
			return null;
		}
		LocalRedisServer server = new LocalRedisServer(process, command, port, directory, binary, extraArguments, tls);
		Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
		return server;
	}

	/**
	 * Start the process and wait until it answers PING.
	 * @return the process, or {@code null} when it died at once (the port not free)
	 */
	private static Process startProcess(List<String> command, int port, Path directory, TestCertificates tls)
			throws IOException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("redis.log").toFile()))
			.start();
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				return null;
			}
			if (answersPing(port, tls)) {
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
		try (Socket socket = connect(this.port, this.tls, 1000)) {
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
				Process started = startProcess(this.command, this.port, this.directory, this.tls);
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
		return answersPing(port, null);
	}

	private static boolean answersPing(int port, TestCertificates tls) {
		try (Socket socket = connect(port, tls, 200)) {
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

	/**
	 * Open a socket to a port on the loopback address, over TLS (handshake done) when
	 * certificates are given.
	 */
	private static Socket connect(int port, TestCertificates tls, int timeoutMillis) throws IOException {
		Socket socket = new Socket();
		try {
			socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
			if (tls == null) {
				return socket;
			}
			socket.setSoTimeout(Math.max(timeoutMillis, 1000));
			javax.net.ssl.SSLSocket secure = (javax.net.ssl.SSLSocket) tls.sslContext()
				.getSocketFactory()
				.createSocket(socket, "127.0.0.1", port, true);
			secure.startHandshake();
			return secure;
		}
		catch (IOException | RuntimeException ex) {
			socket.close();
			throw ex;
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

	/**
	 * Return the certificates of a server that speaks TLS only, or {@code null}.
	 */
	public TestCertificates tls() {
		return this.tls;
	}

	/**
	 * Return the server as a Lettuce URI (TLS with peer verification when it speaks TLS;
	 * a client then needs {@link TestCertificates#clientOptions()}).
	 */
	public io.lettuce.core.RedisURI redisUri() {
		return io.lettuce.core.RedisURI.builder()
			.withHost(host())
			.withPort(this.port)
			.withSsl(this.tls != null)
			.build();
	}

	@Override
	public String uri() {
		return ((this.tls != null) ? "rediss://" : "redis://") + host() + ":" + port();
	}

	/**
	 * Return a new, started connection factory of its own, over TLS trusting the test CA
	 * when the server speaks TLS.
	 */
	@Override
	public org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory connectionFactory() {
		if (this.tls == null) {
			return super.connectionFactory();
		}
		org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration client = org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration
			.builder()
			.useSsl()
			.and()
			.clientOptions(this.tls.clientOptions())
			.build();
		return started(new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory(
				new org.springframework.data.redis.connection.RedisStandaloneConfiguration(host(), port()), client));
	}

	/**
	 * Return the Spring Boot properties that point an application at this server: over
	 * TLS ({@code spring.data.redis.ssl.bundle}, a PEM bundle trusting the test CA) when
	 * it speaks TLS.
	 */
	@Override
	public String[] springProperties() {
		if (this.tls == null) {
			return super.springProperties();
		}
		List<String> properties = new ArrayList<>(List.of(super.springProperties()));
		properties.add("spring.data.redis.ssl.enabled=true");
		properties.add("spring.data.redis.ssl.bundle=" + this.tls.bundleName());
		properties.addAll(List.of(this.tls.springBundleProperties()));
		return properties.toArray(String[]::new);
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
				LocalRedisServer server = tryStart(this.binary, this.tls, this.port, this.arguments);
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
		return startProgram(this.binary, this.tls, this.arguments);
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
	/**
	 * Return the ids of the clients in pub/sub mode now
	 * ({@code CLIENT LIST TYPE pubsub}).
	 */
	public java.util.List<String> pubSubClientIds() {
		io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
		if (this.tls != null) {
			client.setOptions(this.tls.clientOptions());
		}
		try (io.lettuce.core.api.StatefulRedisConnection<String, String> connection = client.connect(redisUri())) {
			// (Redis flags a client in pub/sub mode with P.)
			return java.util.Arrays.stream(connection.sync().clientList().split("\n"))
				.filter((line) -> java.util.regex.Pattern.compile(" flags=[A-Za-z]*P").matcher(line).find())
				.map((line) -> line.substring(0, line.indexOf(' ')))
				.toList();
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	public long killPubSubClients() {
		io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
		if (this.tls != null) {
			client.setOptions(this.tls.clientOptions());
		}
		try (io.lettuce.core.api.StatefulRedisConnection<String, String> connection = client.connect(redisUri())) {
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
