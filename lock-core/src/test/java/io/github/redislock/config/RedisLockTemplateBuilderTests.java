package io.github.redislock.config;

import java.time.Duration;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RedisLockTemplateBuilder} checks each setting, and the settings together, with
 * messages that name them; the order of the calls does not matter.
 */
@ExtendWith(RedisExtension.class)
class RedisLockTemplateBuilderTests {

	private final LettuceConnectionFactory factory;

	RedisLockTemplateBuilderTests(RedisServer redis) {
		this.factory = redis.connectionFactory();
	}

	@Test
	void aMaximumHoldSetBeforeTheLeaseIsCheckedAgainstThatLease() throws Exception {
		RedisLockTemplate template = RedisLockTemplateBuilder.forConnectionFactory(this.factory)
			.maxHold(Duration.ofSeconds(10))
			.leaseTime(Duration.ofSeconds(5))
			.build();
		try {
			assertThat(((DefaultRedisLockTemplate) template).getSettings().leaseTime()).hasSeconds(5);
			assertThat(((DefaultRedisLockTemplate) template).getSettings().maxHold()).hasSeconds(10);
		}
		finally {
			((DefaultRedisLockTemplate) template).destroy();
		}
	}

	@Test
	void aMaximumHoldShorterThanTheLeaseIsRefusedWhicheverIsSetFirst() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisLockTemplateBuilder.forConnectionFactory(this.factory)
				.leaseTime(Duration.ofSeconds(10))
				.maxHold(Duration.ofSeconds(5))
				.build())
			.withMessageContaining("'maxHold' (PT5S)")
			.withMessageContaining("'leaseTime' (PT10S)");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisLockTemplateBuilder.forConnectionFactory(this.factory)
				.maxHold(Duration.ofSeconds(5))
				.leaseTime(Duration.ofSeconds(10))
				.build())
			.withMessageContaining("'maxHold' (PT5S)")
			.withMessageContaining("'leaseTime' (PT10S)");
	}

	@Test
	void aSettingThatCannotWorkIsRefusedWhenSet() {
		RedisLockTemplateBuilder builder = RedisLockTemplateBuilder.forConnectionFactory(this.factory);
		assertThatIllegalArgumentException().isThrownBy(() -> builder.keyPrefix("orders{1}"))
			.withMessageContaining("'keyPrefix'");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.leaseTime(Duration.ofMillis(10)))
			.withMessageContaining("'leaseTime'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> builder.replicaAcknowledgement(-1, Duration.ofMillis(100)))
			.withMessageContaining("'minReplicasAcked'");
	}

}
