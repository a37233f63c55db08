package io.github.redislock.test.support;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.util.FileSystemUtils;

/**
 * A {@code redis-server} process on a free loopback port, without persistence, stopped
 * through its process handle (and at the latest when the JVM exits). On Unix a reaper
 * shell waits on a pipe from the JVM and kills the server when the pipe closes, so that a
 * JVM that is killed ({@code kill -9}, a build's fork timeout), whose shutdown hooks
 * never run, does not leave the server running.
 */
final class LocalRedisProcess implements RedisProcess {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

	private static final int ATTEMPTS = 5;

	private static final String REAPER_SHELL = "/bin/sh";

	private final Process process;

	private final int port;

	private final Path directory;

	private final @Nullable Process reaper;

	private LocalRedisProcess(Process process, int port, Path directory, @Nullable Process reaper) {
		this.process = process;
		this.port = port;
		this.directory = directory;
		this.reaper = reaper;
	}

	static LocalRedisProcess start(String program) {
		@Nullable IOException last = null;
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			try {
				LocalRedisProcess started = tryStart(program, freePort());
				if (started != null) {
					return started;
				}
			}
			catch (IOException ex) {
				last = ex;
			}
		}
		throw new IllegalStateException(
				"Could not start " + program + " on a free loopback port (" + ATTEMPTS
						+ " attempts): install redis-server or set REDIS_SERVER to the path of one that runs here",
				last);
	}

	/**
	 * Start the program on the port and wait until it answers; {@code null} when it exits
	 * at once (most often: the port was taken between the probe and the start).
	 */
	static @Nullable LocalRedisProcess tryStart(String program, int port) throws IOException {
		Path directory = Files.createTempDirectory("redislock-test-redis-");
		Process process = new ProcessBuilder(List.of(program, "--port", Integer.toString(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.toString()))
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("redis.log").toFile())
			.start();
		LocalRedisProcess server = new LocalRedisProcess(process, port, directory, reaper(process, directory));
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				server.stop();
				return null;
			}
			if (answersAsItself(port, process.pid())) {
				Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "redislock-test-redis-exit"));
				return server;
			}
			pause();
		}
		server.stop();
		throw new IOException(program + " did not accept connections on port " + port + " within " + START_TIMEOUT);
	}

	/**
	 * Start the shell that kills the server and deletes its directory once the JVM's end
	 * of its standard input closes, which happens however the JVM ends; {@code null}
	 * where there is no {@code /bin/sh}.
	 */
	private static @Nullable Process reaper(Process server, Path directory) {
		if (File.separatorChar != '/' || !new File(REAPER_SHELL).canExecute()) {
			return null;
		}
		try {
			return new ProcessBuilder(List.of(REAPER_SHELL, "-c",
					"while read -r line; do :; done; kill -9 \"$1\" 2>/dev/null; rm -rf \"$2\"", "redislock-reaper",
					Long.toString(server.pid()), directory.toString()))
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.redirectError(ProcessBuilder.Redirect.DISCARD)
				.start();
		}
		catch (IOException ex) {
			return null;
		}
	}

	/**
	 * Whether the server on the port is the process started: another one may listen on it
	 * (the port was taken between the probe and the start, and the server has not failed
	 * to bind it yet), and must never be taken for it ({@code FLUSHALL}).
	 */
	private static boolean answersAsItself(int port, long pid) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
			socket.setSoTimeout(500);
			OutputStream out = socket.getOutputStream();
			out.write("INFO server\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			for (String line = in.readLine(); line != null; line = in.readLine()) {
				if (line.startsWith("process_id:")) {
					return line.substring("process_id:".length()).strip().equals(Long.toString(pid));
				}
			}
			return false;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not find a free loopback port", ex);
		}
	}

	private static void pause() {
		try {
			Thread.sleep(10);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server to start", ex);
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

	@Override
	public synchronized void stop() {
		// First, so that it never kills a process that reuses the server's pid.
		Process reaper = this.reaper;
		if (reaper != null && reaper.isAlive()) {
			reaper.destroyForcibly();
		}
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
		return "redis-server pid " + this.process.pid() + " on 127.0.0.1:" + this.port;
	}

}
