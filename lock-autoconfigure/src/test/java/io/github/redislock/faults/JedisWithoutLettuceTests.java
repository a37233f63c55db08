package io.github.redislock.faults;

import java.time.Duration;
import java.util.List;

import io.github.redislock.test.ChildJvm;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application on Jedis, with Lettuce excluded from its class path, as a Spring Boot
 * application that swaps the client does it: the locks work through Spring Data's
 * connections, the queue's workers run tasks (and retry a failed one), and replica
 * acknowledgement (which needs Lettuce) is refused with a message naming the property.
 */
@ExtendWith(RedisExtension.class)
class JedisWithoutLettuceTests {

	private final RedisServer redis;

	JedisWithoutLettuceTests(RedisServer redis) {
		this.redis = redis;
	}

	@Test
	void locksWorkOnJedisWithoutLettuceOnTheClassPath() {
		try (ChildJvm application = ChildJvm.startWithout(List.of("lettuce-core"), JedisApplication.class,
				this.redis.host(), Integer.toString(this.redis.port()))) {
			String line = String.join(" ", application.await("done", Duration.ofSeconds(60)));
			assertThat(line).contains("acquired=true", "second=false", "afterRelease=true").doesNotContain("token=0 ");
		}
	}

	@Test
	void aSpringBootApplicationOnJedisStartsAndLocksWithoutLettuceOrReactor() {
		try (ChildJvm application = ChildJvm.startWithout(List.of("lettuce-core", "reactor-core"),
				JedisApplication.class, this.redis.host(), Integer.toString(this.redis.port()), "boot")) {
			String line = String.join(" ", application.await("done", Duration.ofSeconds(90)));
			assertThat(line)
				.contains("factory=JedisConnectionFactory", "reactor=false", "reactiveTemplate=false", "queued=true",
						"flakyRuns=2")
				.doesNotContain("token=0")
				.doesNotContain("asyncToken=0");
		}
	}

	@Test
	void replicaAcknowledgementOnJedisIsRefusedNamingTheProperty() {
		try (ChildJvm application = ChildJvm.startWithout(List.of("lettuce-core"), JedisApplication.class,
				this.redis.host(), Integer.toString(this.redis.port()), "acknowledged")) {
			String line = String.join(" ", application.await("failed", Duration.ofSeconds(60)));
			assertThat(line).contains("redislock.min-replicas-acked=1 needs Lettuce").doesNotContain("NoClassDefFound");
		}
	}

}
