package io.github.redislock.sample.examples;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.core.RedisLockTemplate;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

/**
 * A {@code Mono} under a lock: the lock is taken without blocking a thread when the
 * {@code Mono} is subscribed, and held until it completes, fails or is cancelled.
 */
@Service
public class Repricing {

	private final RedisLockTemplate locks;

	public Repricing(RedisLockTemplate locks) {
		this.locks = locks;
	}

	@DistributedLock(name = "price", key = "#sku", waitTime = "5s")
	public Mono<String> reprice(String sku) {
		return Mono.fromCallable(() -> sku + " repriced, lock "
				+ (this.locks.getLock("price:" + sku).isLocked() ? "held" : "free") + " meanwhile");
	}

}
