package io.github.redislock.sample;

import io.github.redislock.annotation.DistributedLock;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Stock of items, kept in Redis and changed by read-modify-write under a lock per item:
 * the lock is what stops two buyers from taking the last item.
 */
@Service
public class StockService {

	private final StringRedisTemplate redis;

	public StockService(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@DistributedLock(name = "stock", key = "#item", waitTime = "5s")
	public void restock(String item, int amount) {
		this.redis.opsForValue().set(key(item), Integer.toString(amount));
	}

	/**
	 * Take one item if any is left.
	 * @return whether the buyer got one
	 */
	@DistributedLock(name = "stock", key = "#item", waitTime = "5s")
	public boolean buy(String item) {
		int left = available(item);
		if (left <= 0) {
			return false;
		}
		this.redis.opsForValue().set(key(item), Integer.toString(left - 1));
		return true;
	}

	public int available(String item) {
		String value = this.redis.opsForValue().get(key(item));
		return (value != null) ? Integer.parseInt(value) : 0;
	}

	private static String key(String item) {
		return "sample:stock:" + item;
	}

}
