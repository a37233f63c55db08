package io.github.redislock.sample.examples;

import io.github.redislock.annotation.QueuedTask;

import org.springframework.stereotype.Service;

/**
 * A queued e-mail with retries: calling {@link #send(String)} only enqueues it; a worker
 * on some instance sends it, retrying a failure after 200 ms, then 400 ms, up to four
 * attempts, before it goes to the dead letters. One mail per address while it waits.
 */
@Service
public class WelcomeMail {

	private final MailGateway gateway;

	public WelcomeMail(MailGateway gateway) {
		this.gateway = gateway;
	}

	@QueuedTask(queue = "welcome-mail", id = "#to", maxAttempts = "4", backoff = "200ms")
	public void send(String to) {
		this.gateway.send(to, "Welcome!");
	}

}
