package io.github.redislock.sample.examples;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.DistributedSemaphore;
import io.github.redislock.annotation.OnLockFailure;

import org.springframework.stereotype.Service;

/**
 * A semaphore: at most two renderings at once across every instance; a third caller is
 * turned away at once (it could wait instead, with a {@code waitTime}).
 */
@Service
public class ReportRenderer {

	private final AtomicInteger rendering = new AtomicInteger();

	@DistributedSemaphore(name = "report-rendering", permits = "2", waitTime = "0", onFailure = OnLockFailure.SKIP)
	public String render(String report, CountDownLatch finish) throws InterruptedException {
		this.rendering.incrementAndGet();
		try {
			finish.await(30, TimeUnit.SECONDS);
			return report + " rendered";
		}
		finally {
			this.rendering.decrementAndGet();
		}
	}

	public int rendering() {
		return this.rendering.get();
	}

}
