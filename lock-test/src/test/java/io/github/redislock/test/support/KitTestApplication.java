package io.github.redislock.test.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.QueuedTask;
import io.github.redislock.core.LockContext;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A small application for the kit's own tests: a queued mail that takes a lock while it
 * runs.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class KitTestApplication {

	@Bean
	Mailbox mailbox() {
		return new Mailbox();
	}

	@Bean
	Mailer mailer(Mailbox mailbox) {
		return new Mailer(mailbox);
	}

	/** Where sent mails go, with the thread and the lock each was sent under. */
	static class Mailbox {

		private final List<String> sent = new CopyOnWriteArrayList<>();

		@DistributedLock(name = "mailbox", key = "#to")
		public void deliver(String to) {
			this.sent.add(to + " on " + Thread.currentThread().getName() + " under " + LockContext.lockName());
		}

		public List<String> sent() {
			return this.sent;
		}

	}

	static class Mailer {

		private final Mailbox mailbox;

		Mailer(Mailbox mailbox) {
			this.mailbox = mailbox;
		}

		@QueuedTask(queue = "mail", id = "#to")
		public void send(String to) {
			this.mailbox.deliver(to);
		}

		@QueuedTask(queue = "bounces", id = "#to", maxAttempts = "1")
		public void bounce(String to) {
			throw new IllegalStateException("no such mailbox: " + to);
		}

	}

}
