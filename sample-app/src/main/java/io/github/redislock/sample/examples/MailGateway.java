package io.github.redislock.sample.examples;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

/**
 * A flaky mail server: the first attempt for each address fails, the next succeeds.
 */
@Component
public class MailGateway {

	private final Map<String, Integer> attempts = new ConcurrentHashMap<>();

	public void send(String to, String subject) {
		int attempt = this.attempts.merge(to, 1, Integer::sum);
		if (attempt == 1) {
			throw new IllegalStateException("Mail server busy, try again later (" + to + ")");
		}
	}

	public int attempts(String to) {
		return this.attempts.getOrDefault(to, 0);
	}

}
