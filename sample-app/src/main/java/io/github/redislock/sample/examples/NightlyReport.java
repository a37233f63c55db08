package io.github.redislock.sample.examples;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.annotation.DistributedLock;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job that runs on one instance per tick, as ShedLock's jobs do: on a
 * {@code @Scheduled} method the lock's wait is 0 and a taken lock skips the tick; held at
 * least 30 seconds, so instances whose clocks differ a little do not run it twice.
 */
@Component
public class NightlyReport {

	private final AtomicInteger runs = new AtomicInteger();

	@Scheduled(cron = "${sample.examples.nightly-report.cron:0 0 2 * * *}")
	@DistributedLock(name = "nightly-report", holdAtLeast = "30s")
	public void run() {
		this.runs.incrementAndGet();
	}

	public int runs() {
		return this.runs.get();
	}

}
