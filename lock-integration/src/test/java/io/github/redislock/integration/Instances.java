package io.github.redislock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.config.RedisLockTemplateBuilder;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisTarget;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Application instances for a test: each template on a connection factory of its own, the
 * registries over them and the leader initiators over those; all stopped after the test.
 */
final class Instances implements AutoCloseable {

	private final RedisTarget redis;

	private final StringRedisTemplate keys;

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	private final List<RedisLockRegistryAdapter> registries = new ArrayList<>();

	private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

	private final List<DisposableBean> others = new ArrayList<>();

	Instances(RedisTarget redis) {
		this.redis = redis;
		this.keys = redis.template();
	}

	/**
	 * A new application instance's template, with the default lease.
	 */
	RedisLockTemplate template() {
		return template(Duration.ofSeconds(30));
	}

	/**
	 * A new application instance's template, whose watchdog lease is {@code lease}.
	 */
	RedisLockTemplate template(Duration lease) {
		RedisLockTemplate template = RedisLockTemplateBuilder.forConnectionFactory(this.redis.connectionFactory())
			.leaseTime(lease)
			.build();
		this.templates.add(template);
		return template;
	}

	/**
	 * A registry on a new instance, renewed by the watchdog.
	 */
	RedisLockRegistryAdapter registry() {
		return register(new RedisLockRegistryAdapter(template()));
	}

	/**
	 * A registry on a new instance whose locks expire after {@code expireAfter}.
	 */
	RedisLockRegistryAdapter registry(Duration expireAfter) {
		return register(new RedisLockRegistryAdapter(template(), expireAfter));
	}

	RedisLockRegistryAdapter register(RedisLockRegistryAdapter registry) {
		this.registries.add(registry);
		return registry;
	}

	/**
	 * A connection factory of a new application instance, for a registry of Spring
	 * Integration's own (destroyed with the instances).
	 */
	RedisConnectionFactory connectionFactory() {
		return this.redis.connectionFactory();
	}

	<T extends DisposableBean> T registerOther(T other) {
		this.others.add(other);
		return other;
	}

	LockRegistryLeaderInitiator register(LockRegistryLeaderInitiator initiator) {
		this.initiators.add(initiator);
		return initiator;
	}

	/**
	 * The Redis key of the exclusive lock {@code name} (default key prefix).
	 */
	static String key(String name) {
		return "redislock:{" + name + "}";
	}

	/**
	 * Direct access to the keys, as an operator (or a failure) would have.
	 */
	StringRedisTemplate keys() {
		return this.keys;
	}

	boolean exists(String name) {
		return LockRecords.isHeld(this.keys, key(name));
	}

	@Override
	public void close() throws Exception {
		for (LockRegistryLeaderInitiator initiator : this.initiators) {
			initiator.stop();
		}
		// Stopping interrupts the leader's thread, which then unlocks: let it finish
		// first.
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		for (LockRegistryLeaderInitiator initiator : this.initiators) {
			while (initiator.getContext().isLeader() && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
		}
		for (RedisLockRegistryAdapter registry : this.registries) {
			registry.destroy();
		}
		for (DisposableBean other : this.others) {
			other.destroy();
		}
		for (RedisLockTemplate template : this.templates) {
			((DisposableBean) template).destroy();
		}
	}

}
