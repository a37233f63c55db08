package io.github.redislock.sample;

import java.util.UUID;

import io.github.redislock.annotation.DistributedLock;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * A flash sale: stock kept in Redis and changed by read-modify-write under a lock per
 * item, so a burst of buyers on any number of instances never oversells. Each successful
 * buy hands its order to the fulfilment queue.
 */
@Service
public class FlashSale {

	private final StringRedisTemplate redis;

	private final Fulfilment fulfilment;

	public FlashSale(StringRedisTemplate redis, Fulfilment fulfilment) {
		this.redis = redis;
		this.fulfilment = fulfilment;
	}

	@DistributedLock(name = "flash-sale", key = "#item")
	public void start(String item, int quantity) {
		this.redis.opsForValue().set(stockKey(item), Integer.toString(quantity));
	}

	/**
	 * Buy one item.
	 * @return the order id, or {@code null} when the item is sold out
	 */
	@DistributedLock(name = "flash-sale", key = "#item")
	public @Nullable String buy(String item, String buyer) {
		int left = left(item);
		if (left <= 0) {
			return null;
		}
		this.redis.opsForValue().set(stockKey(item), Integer.toString(left - 1));
		String orderId = UUID.randomUUID().toString();
		this.fulfilment.fulfil(orderId, item, buyer);
		return orderId;
	}

	public int left(String item) {
		String value = this.redis.opsForValue().get(stockKey(item));
		return (value != null) ? Integer.parseInt(value) : 0;
	}

	private static String stockKey(String item) {
		return "sample:stock:" + item;
	}

}
