package io.github.redislock.test.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.QueuedTask;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** The application of the tests written by the hostile review of the kit (#33). */
@SpringBootConfiguration
@EnableAutoConfiguration
class KitReviewApp {

	@Bean
	Guarded guarded() {
		return new Guarded();
	}

	@Bean
	GuardedMailer guardedMailer(Guarded guarded) {
		return new GuardedMailer(guarded);
	}

	@Bean
	Chain chain(ObjectProvider<Chain> self) {
		return new Chain(self);
	}

	@Bean
	Busy busy() {
		return new Busy();
	}

	/** A queue with its own worker count, as a placeholder a test can set to 0. */
	static class Busy {

		final List<String> ranOn = new CopyOnWriteArrayList<>();

		@QueuedTask(queue = "busy", id = "#id", workers = "${busy.workers:2}")
		public void work(String id) {
			this.ranOn.add(Thread.currentThread().getName());
		}

		public List<String> ranOn() {
			return this.ranOn;
		}

	}

	/** Sends under a lock that a worker must not get while someone else holds it. */
	static class Guarded {

		final List<String> sent = new CopyOnWriteArrayList<>();

		@DistributedLock(name = "guarded", key = "#to", waitTime = "0")
		public void deliver(String to) {
			this.sent.add(to);
		}

		public List<String> sent() {
			return this.sent;
		}

	}

	static class GuardedMailer {

		private final Guarded guarded;

		GuardedMailer(Guarded guarded) {
			this.guarded = guarded;
		}

		@QueuedTask(queue = "guarded", id = "#to", maxAttempts = "1")
		public void send(String to) {
			this.guarded.deliver(to);
		}

	}

	/**
	 * Task "z-last" (the last queue in name order) hands off to "a-first" (the first), as
	 * fulfilment hands off to a receipt mail; 18 idle queues sit between them.
	 */
	static class Chain {

		final AtomicInteger firstRuns = new AtomicInteger();

		private final ObjectProvider<Chain> self;

		Chain(ObjectProvider<Chain> self) {
			this.self = self;
		}

		public int firstRuns() {
			return this.firstRuns.get();
		}

		@QueuedTask(queue = "a-first", id = "#n")
		public void first(int n) {
			this.firstRuns.incrementAndGet();
		}

		@QueuedTask(queue = "z-last", id = "#n")
		public void last(int n) throws InterruptedException {
			Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(30));
			this.self.getObject().first(n);
		}

		@QueuedTask(queue = "m01")
		public void m01(int n) {
		}

		@QueuedTask(queue = "m02")
		public void m02(int n) {
		}

		@QueuedTask(queue = "m03")
		public void m03(int n) {
		}

		@QueuedTask(queue = "m04")
		public void m04(int n) {
		}

		@QueuedTask(queue = "m05")
		public void m05(int n) {
		}

		@QueuedTask(queue = "m06")
		public void m06(int n) {
		}

		@QueuedTask(queue = "m07")
		public void m07(int n) {
		}

		@QueuedTask(queue = "m08")
		public void m08(int n) {
		}

		@QueuedTask(queue = "m09")
		public void m09(int n) {
		}

		@QueuedTask(queue = "m10")
		public void m10(int n) {
		}

		@QueuedTask(queue = "m11")
		public void m11(int n) {
		}

		@QueuedTask(queue = "m12")
		public void m12(int n) {
		}

		@QueuedTask(queue = "m13")
		public void m13(int n) {
		}

		@QueuedTask(queue = "m14")
		public void m14(int n) {
		}

		@QueuedTask(queue = "m15")
		public void m15(int n) {
		}

		@QueuedTask(queue = "m16")
		public void m16(int n) {
		}

		@QueuedTask(queue = "m17")
		public void m17(int n) {
		}

		@QueuedTask(queue = "m18")
		public void m18(int n) {
		}

	}

}
