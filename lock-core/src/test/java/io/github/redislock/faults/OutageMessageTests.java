package io.github.redislock.faults;

import java.time.Duration;

import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import io.github.redislock.test.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a waiter's error says when Redis is merely down or frozen and the client's TLS
 * settings are right: it must not send the user after a TLS mismatch that is not there.
 */
@ExtendWith(RedisExtension.class)
class OutageMessageTests {

	private static TestCertificates certificates;

	@BeforeAll
	static void makeCertificates() {
		certificates = TestCertificates.create();
	}

	@AfterAll
	static void deleteCertificates() {
		certificates.close();
	}

	/**
	 * A TLS server frozen (SIGSTOP: the kernel still accepts connections, nothing
	 * answers), reached by a client whose TLS settings match it: the handshake times out,
	 * and the message names a frozen or unresponsive server, not TLS as the likely cause.
	 */
	@Test
	void frozenTlsServerReachedOverTlsIsNotBlamedOnATlsMismatch(RedisServers servers) throws Exception {
		LocalRedisServer redis = servers.startTls(certificates);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()),
				LettuceClientConfiguration.builder()
					.useSsl()
					.and()
					.clientOptions(certificates.clientOptions())
					.commandTimeout(Duration.ofMillis(300))
					.build());
		factory.afterPropertiesSet();
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(factory, LockSettings.DEFAULTS);
		redis.pause();
		try {
			factory.start();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> template.getLock("frozen").tryLock(Duration.ofSeconds(1), null))
				.withMessageContaining("Connection initialization timed out")
				.withMessageContaining("frozen or overloaded")
				.withMessageNotContaining("most often TLS");
		}
		finally {
			redis.resume();
			template.destroy();
			factory.destroy();
		}
	}

}
