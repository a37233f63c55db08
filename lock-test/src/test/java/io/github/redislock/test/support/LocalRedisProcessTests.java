package io.github.redislock.test.support;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local {@code redis-server} process: it is the one the kit connects to, and it does
 * not outlive a test JVM that was killed.
 */
class LocalRedisProcessTests {

	/**
	 * A server slow to start (a loaded machine, a wrapper script) has not failed to bind
	 * yet when the port first answers: the answer is another process's.
	 */
	@Test
	@DisabledOnOs(OS.WINDOWS)
	void serverWhosePortAnotherProcessListensOnIsNotTakenForOurs(@TempDir Path directory) throws Exception {
		Path slow = directory.resolve("slow-redis-server");
		Files.writeString(slow, "#!/bin/sh\nsleep 0.5\nexec '" + RedisProgram.find() + "' \"$@\"\n");
		assertThat(slow.toFile().setExecutable(true)).isTrue();
		try (ServerSocket other = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			LocalRedisProcess started = LocalRedisProcess.tryStart(slow.toString(), other.getLocalPort());
			try {
				assertThat(started).as("a server that could not bind the port, answered by another process").isNull();
			}
			finally {
				if (started != null) {
					started.stop();
				}
			}
		}
	}

	@Test
	@DisabledOnOs(OS.WINDOWS)
	void serverDoesNotOutliveATestJvmKilledWithSigkill() throws Exception {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		Process child = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
				SharedRedisChild.class.getName()))
			.redirectErrorStream(true)
			.start();
		long serverPid = -1;
		try {
			BufferedReader out = new BufferedReader(
					new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
			Pattern started = Pattern.compile("redis-server pid (\\d+) on ");
			for (String line = out.readLine(); line != null; line = out.readLine()) {
				Matcher matcher = started.matcher(line);
				if (matcher.find()) {
					serverPid = Long.parseLong(matcher.group(1));
					break;
				}
			}
			assertThat(serverPid).as("the child's server").isPositive();
			assertThat(ProcessHandle.of(serverPid).map(ProcessHandle::isAlive)).contains(true);
			child.destroyForcibly();
			assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (alive(serverPid) && System.nanoTime() < deadline) {
				Thread.sleep(50);
			}
			assertThat(alive(serverPid)).as("redis-server pid %s after its JVM was killed", serverPid).isFalse();
		}
		finally {
			child.destroyForcibly();
			if (serverPid > 0) {
				ProcessHandle.of(serverPid).ifPresent(ProcessHandle::destroyForcibly);
			}
		}
	}

	private static boolean alive(long pid) {
		Optional<ProcessHandle> handle = ProcessHandle.of(pid);
		return handle.isPresent() && handle.get().isAlive();
	}

	/**
	 * A test JVM that starts the shared Redis, says which, and waits to be killed.
	 */
	static final class SharedRedisChild {

		private SharedRedisChild() {
		}

		public static void main(String[] args) throws InterruptedException {
			System.out.println(TestRedis.shared());
			System.out.flush();
			Thread.sleep(TimeUnit.MINUTES.toMillis(5));
		}

	}

}
