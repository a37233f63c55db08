package io.github.redislock.internal.lock;

import java.net.SocketException;
import java.time.Duration;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How a Lettuce command's failure reaches the engine: as the {@code DataAccessException}
 * Spring Data Redis would give, so that a connection failure is retried within the wait
 * time like any other.
 */
class LettuceScriptsTests {

	@Test
	void aConnectionResetIsAConnectionFailure() {
		// What a connection cut during a Sentinel failover completes a command with.
		AsyncCommand<String, String, String> command = new AsyncCommand<>(
				new Command<>(CommandType.EVALSHA, new StatusOutput<>(StringCodec.UTF8)));
		command.completeExceptionally(new SocketException("Connection reset"));
		assertThatExceptionOfType(RedisConnectionFailureException.class).isThrownBy(() -> {
			try {
				LettuceScripts.await(command, Duration.ofSeconds(1));
			}
			catch (RuntimeException ex) {
				// As every synchronous script call does.
				throw LettuceScripts.translate(ex);
			}
		}).withMessageContaining("Connection reset");
	}

}
