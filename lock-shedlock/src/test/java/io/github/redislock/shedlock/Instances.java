package io.github.redislock.shedlock;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.config.RedisLockTemplateBuilder;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisTarget;

import org.springframework.beans.factory.DisposableBean;

/**
 * Lock templates on connection factories of their own, each like a separate application
 * instance, destroyed after the test.
 */
final class Instances implements AutoCloseable {

	private final RedisTarget redis;

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	Instances(RedisTarget redis) {
		this.redis = redis;
	}

	RedisLockTemplate template() {
		RedisLockTemplate template = RedisLockTemplateBuilder.forConnectionFactory(this.redis.connectionFactory())
			.build();
		this.templates.add(template);
		return template;
	}

	@Override
	public void close() throws Exception {
		for (RedisLockTemplate template : this.templates) {
			((DisposableBean) template).destroy();
		}
	}

}
