package io.github.redislock.test.support;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local {@code redis-server} process: it is the one the kit connects to.
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

}
