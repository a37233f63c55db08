package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.test.LocalRedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the Jedis tests share: a started Jedis connection factory, and a lock handed from
 * its holder to a thread that waits for it.
 */
final class JedisHandOff {

	private JedisHandOff() {
	}

	/**
	 * A started Jedis connection factory for {@code redis}, as {@code user} when not
	 * {@code null}.
	 */
	static JedisConnectionFactory jedis(LocalRedisServer redis, String user, String password) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.host(), redis.port());
		if (user != null) {
			configuration.setUsername(user);
			configuration.setPassword(password);
		}
		JedisConnectionFactory factory = new JedisConnectionFactory(configuration);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Hold a lock, let another thread wait for it (25 s at most), release it, and return
	 * how long after the release the waiter had it.
	 */
	static Duration handOff(DefaultRedisLockTemplate template, String name) throws Exception {
		ExecutorService waiter = Executors.newSingleThreadExecutor();
		try {
			RedisLock lock = template.getLock(name);
			assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(30))).isTrue();
			long[] acquiredAt = new long[1];
			Future<Boolean> waiting = waiter.submit(() -> {
				RedisLock same = template.getLock(name);
				boolean acquired = same.tryLock(Duration.ofSeconds(25), null);
				acquiredAt[0] = System.nanoTime();
				if (acquired) {
					same.unlock();
				}
				return acquired;
			});
			// The waiter has tried once and listens (its first attempt failed).
			Thread.sleep(1500);
			long releasedAt = System.nanoTime();
			lock.unlock();
			assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
			return Duration.ofNanos(acquiredAt[0] - releasedAt);
		}
		finally {
			waiter.shutdownNow();
		}
	}

}
