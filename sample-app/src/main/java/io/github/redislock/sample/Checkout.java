package io.github.redislock.sample;

import java.util.List;

import io.github.redislock.annotation.DistributedSemaphore;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Service;

/**
 * Checkout: charges the buyer at the payment provider, then buys the item. The provider
 * accepts at most a few concurrent charges per merchant, whichever instance sends them,
 * so checkouts take one of {@code sample.checkout.max-concurrent} permits of a
 * distributed semaphore; a crashed instance's permit comes back when its lease ends. How
 * many ran at once, across all instances, is kept in Redis for the status page.
 */
@Service
public class Checkout {

	static final String IN_PROGRESS = "sample:checkouts:in-progress";

	static final String PEAK = "sample:checkouts:peak";

	/** Counts a checkout in, and keeps the most at once. */
	private static final RedisScript<Long> ENTER = RedisScript.of("""
			local now = redis.call('INCR', KEYS[1])
			if now > tonumber(redis.call('GET', KEYS[2]) or '0') then
			  redis.call('SET', KEYS[2], now)
			end
			return now""", Long.class);

	private final FlashSale sale;

	private final StringRedisTemplate redis;

	public Checkout(FlashSale sale, StringRedisTemplate redis) {
		this.sale = sale;
		this.redis = redis;
	}

	/**
	 * Charge and buy one item.
	 * @return the order id, or {@code null} when the item is sold out
	 */
	@DistributedSemaphore(name = "checkout", permits = "${sample.checkout.max-concurrent:8}", waitTime = "30s")
	public @Nullable String checkout(String item, String buyer) {
		this.redis.execute(ENTER, List.of(IN_PROGRESS, PEAK));
		try {
			chargeAtPaymentProvider();
			return this.sale.buy(item, buyer);
		}
		finally {
			this.redis.opsForValue().decrement(IN_PROGRESS);
		}
	}

	/**
	 * The most checkouts that ran at once, on all instances together.
	 */
	public long peakConcurrent() {
		String peak = this.redis.opsForValue().get(PEAK);
		return (peak != null) ? Long.parseLong(peak) : 0;
	}

	private static void chargeAtPaymentProvider() {
		try {
			// A remote call's worth of time.
			Thread.sleep(2);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
