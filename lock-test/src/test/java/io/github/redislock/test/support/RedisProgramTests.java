package io.github.redislock.test.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Which program {@code REDIS_SERVER} names: a path, a program on the {@code PATH}, or a
 * server that the build's {@code .ci/build-servers} cached by name ({@code valkey-9}, as
 * in {@code REDIS_SERVER=valkey-9 ./mvnw verify}, which runs every module's tests on it).
 */
@DisabledOnOs(OS.WINDOWS)
class RedisProgramTests {

	@Test
	void nameOfACachedServerIsItsNewestBuild(@TempDir Path cache) throws IOException {
		executable(cache.resolve("valkey-9.0.3/valkey-server"));
		Path newest = executable(cache.resolve("valkey-9.1.12/valkey-server"));
		executable(cache.resolve("redis-8.0.6/redis-server"));
		assertThat(RedisProgram.configured("valkey-9", cache)).isEqualTo(newest.toString());
	}

	@Test
	void nameOfNoProgramAndNoCachedServerSaysWhatItLookedFor(@TempDir Path cache) {
		assertThatIllegalStateException().isThrownBy(() -> RedisProgram.configured("valkey-10", cache))
			.withMessageContaining("REDIS_SERVER=valkey-10")
			.withMessageContaining("PATH")
			.withMessageContaining(cache.toString());
	}

	@Test
	void pathIsTakenAsItIs(@TempDir Path directory) throws IOException {
		Path program = executable(directory.resolve("my-redis-server"));
		assertThat(RedisProgram.configured(program.toString(), directory)).isEqualTo(program.toString());
	}

	private static Path executable(Path path) throws IOException {
		Files.createDirectories(path.getParent());
		Files.writeString(path, "#!/bin/sh\n");
		assertThat(path.toFile().setExecutable(true)).isTrue();
		return path;
	}

}
