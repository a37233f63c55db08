package io.github.redislock.sample;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.annotation.QueuedTask;

import org.springframework.stereotype.Service;

/**
 * Mails receipts later, through the queue {@code receipts}. While the mailbox is closed
 * (an outage, {@link #setMailboxOpen}) a receipt fails with an error that is never
 * retried, so it goes straight to the dead letters, where an operator requeues it from
 * the dashboard once the mailbox is open again.
 */
@Service
public class Receipts {

	private final Set<String> sent = ConcurrentHashMap.newKeySet();

	private volatile boolean mailboxOpen = true;

	@QueuedTask(queue = "receipts", id = "#orderId", noRetryFor = MailboxClosedException.class, maxAttempts = "3",
			backoff = "2s")
	public void send(String orderId, String buyer) {
		if (!this.mailboxOpen) {
			throw new MailboxClosedException("The mailbox is closed; receipt " + orderId + " for " + buyer
					+ " was not sent. Requeue it from the dead letters once the mailbox is open");
		}
		this.sent.add(orderId);
	}

	public Set<String> sent() {
		return Set.copyOf(this.sent);
	}

	public void setMailboxOpen(boolean mailboxOpen) {
		this.mailboxOpen = mailboxOpen;
	}

	/**
	 * The mailbox does not accept mail: retrying at once is pointless.
	 */
	public static class MailboxClosedException extends RuntimeException {

		public MailboxClosedException(String message) {
			super(message);
		}

	}

}
