package io.github.redislock.sample.examples;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.core.LockContext;

import org.springframework.stereotype.Service;

/**
 * A fenced write: the lock's fencing token goes with the write, and the store refuses
 * tokens older than one it has seen.
 */
@Service
public class StockLevels {

	private final FencedStore store;

	public StockLevels(FencedStore store) {
		this.store = store;
	}

	@DistributedLock(name = "stock", key = "#sku")
	public long set(String sku, int level) {
		long token = LockContext.fencingToken();
		this.store.write(sku, Integer.toString(level), token);
		return token;
	}

}
