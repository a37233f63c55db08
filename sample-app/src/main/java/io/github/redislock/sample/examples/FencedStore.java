package io.github.redislock.sample.examples;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

/**
 * A store that refuses writes carrying an older fencing token than one it has seen for
 * the key: a holder whose lock expired during a pause cannot overwrite the newer holder's
 * write.
 */
@Component
public class FencedStore {

	private final Map<String, Long> tokens = new ConcurrentHashMap<>();

	private final Map<String, String> values = new ConcurrentHashMap<>();

	public synchronized void write(String key, String value, long fencingToken) {
		long seen = this.tokens.getOrDefault(key, -1L);
		if (fencingToken < seen) {
			throw new IllegalStateException(
					"Stale write to '" + key + "': fencing token " + fencingToken + " < " + seen + " already seen");
		}
		this.tokens.put(key, fencingToken);
		this.values.put(key, value);
	}

	public String read(String key) {
		return this.values.get(key);
	}

}
