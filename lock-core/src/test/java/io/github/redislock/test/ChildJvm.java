package io.github.redislock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A separate JVM running a main class from the test class path — a lock holder or a queue
 * worker in a process of its own — that a test can talk to over stdin and stdout, freeze
 * (SIGSTOP), thaw (SIGCONT) and kill (SIGKILL) by its process id.
 * <p>
 * The child reads commands from stdin line by line and reports on stdout line by line;
 * {@link #await(String, Duration)} waits for a line starting with a given word. Its
 * stderr goes to the test's stderr.
 */
public final class ChildJvm implements AutoCloseable {

	private final Process process;

	private final PrintWriter input;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final List<String> seen = new ArrayList<>();

	private ChildJvm(Process process) {
		this.process = process;
		this.input = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
		Thread reader = new Thread(() -> {
			try (BufferedReader out = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = out.readLine()) != null) {
					this.lines.add(line);
				}
			}
			catch (IOException ex) {
				// the child is gone
			}
		}, "child-jvm-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start {@code mainClass} in a new JVM with this JVM's class path, tuned to start
	 * fast (256 MB heap, C1 compiler only).
	 */
	public static ChildJvm start(Class<?> mainClass, String... arguments) {
		return start(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), mainClass, arguments);
	}

	/**
	 * Start {@code mainClass} in a new JVM with this JVM's class path and the given JVM
	 * options.
	 */
	public static ChildJvm start(List<String> jvmOptions, Class<?> mainClass, String... arguments) {
		return start(jvmOptions, System.getProperty("java.class.path"), mainClass, arguments);
	}

	/**
	 * Start {@code mainClass} in a new JVM with this JVM's class path minus the entries
	 * whose file name contains one of {@code excluded} (an application without Lettuce,
	 * say).
	 */
	public static ChildJvm startWithout(List<String> excluded, Class<?> mainClass, String... arguments) {
		String classPath = java.util.Arrays
			.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
			.filter((entry) -> excluded.stream()
				.noneMatch((name) -> Path.of(entry).getFileName().toString().contains(name)))
			.collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
		return start(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), classPath, mainClass, arguments);
	}

	/**
	 * Start {@code mainClass} in a new JVM of the JDK at {@code javaHome}, with this
	 * JVM's class path.
	 */
	public static ChildJvm startOn(Path javaHome, Class<?> mainClass, String... arguments) {
		return start(javaHome, List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), System.getProperty("java.class.path"),
				mainClass, arguments);
	}

	/**
	 * Return a JDK that has virtual threads (21 or later): this one, the one named by
	 * {@code -Dredislock.test.java21.home}, or one under {@code /usr/lib/jvm}.
	 */
	public static java.util.Optional<Path> javaHomeWithVirtualThreads() {
		if (Runtime.version().feature() >= 21) {
			return java.util.Optional.of(Path.of(System.getProperty("java.home")));
		}
		String named = System.getProperty("redislock.test.java21.home");
		if (named != null) {
			return java.util.Optional.of(Path.of(named));
		}
		Path jvms = Path.of("/usr/lib/jvm");
		if (!java.nio.file.Files.isDirectory(jvms)) {
			return java.util.Optional.empty();
		}
		try (java.util.stream.Stream<Path> homes = java.nio.file.Files.list(jvms)) {
			return homes.filter((home) -> featureVersion(home) >= 21)
				.filter((home) -> java.nio.file.Files.isExecutable(home.resolve("bin/java")))
				.findFirst();
		}
		catch (IOException ex) {
			return java.util.Optional.empty();
		}
	}

	private static int featureVersion(Path javaHome) {
		try {
			for (String line : java.nio.file.Files.readAllLines(javaHome.resolve("release"))) {
				if (line.startsWith("JAVA_VERSION=")) {
					String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
					return Integer.parseInt(version.split("[.+-]")[0]);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// not a JDK we can read
		}
		return 0;
	}

	private static ChildJvm start(List<String> jvmOptions, String classPath, Class<?> mainClass, String... arguments) {
		return start(Path.of(System.getProperty("java.home")), jvmOptions, classPath, mainClass, arguments);
	}

	private static ChildJvm start(Path javaHome, List<String> jvmOptions, String classPath, Class<?> mainClass,
			String... arguments) {
		List<String> command = new ArrayList<>();
		command.add(javaHome.resolve("bin").resolve("java").toString());
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(classPath);
		command.add(mainClass.getName());
		command.addAll(List.of(arguments));
		try {
			return new ChildJvm(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public long pid() {
		return this.process.pid();
	}

	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Send one command line to the child.
	 */
	public void send(String line) {
		this.input.println(line);
	}

	/**
	 * Wait for the next line that starts with {@code word}, skipping others.
	 * @return the line's words after the first
	 * @throws IllegalStateException when none comes in time
	 */
	public String[] await(String word, Duration timeout) {
		String line = awaitLine((text) -> text.equals(word) || text.startsWith(word + " "), timeout);
		String rest = line.substring(word.length()).trim();
		return rest.isEmpty() ? new String[0] : rest.split(" ");
	}

	private String awaitLine(Predicate<String> wanted, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		try {
			while (true) {
				long left = deadline - System.nanoTime();
				String line = (left > 0) ? this.lines.poll(left, TimeUnit.NANOSECONDS) : null;
				if (line == null) {
					throw new IllegalStateException("Child JVM " + pid() + " (alive: " + isAlive()
							+ ") did not report in " + timeout + "; it said: " + this.seen);
				}
				this.seen.add(line);
				if (wanted.test(line)) {
					return line;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Freeze the child (SIGSTOP), as a long GC pause or a suspended VM would.
	 */
	public void pause() {
		Signals.send(pid(), "STOP");
	}

	/**
	 * Let a frozen child go on (SIGCONT).
	 */
	public void resume() {
		Signals.send(pid(), "CONT");
	}

	/**
	 * Kill the child at once (SIGKILL): no shutdown hook, no release, no goodbye.
	 */
	public void kill() {
		Signals.killNow(this.process);
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			try {
				resume();
			}
			catch (IllegalStateException ex) {
				// It exited between the look and the signal: nothing left to stop.
				if (this.process.isAlive()) {
					throw ex;
				}
				return;
			}
			kill();
		}
	}

}
