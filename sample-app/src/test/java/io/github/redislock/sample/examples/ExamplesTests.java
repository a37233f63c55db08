package io.github.redislock.sample.examples;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.sample.SampleApplication;
import io.github.redislock.test.support.TaskQueueTestSupport;
import io.github.redislock.test.support.WithRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static io.github.redislock.test.support.RedisLockAssert.assertThatLock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Each example in {@code io.github.redislock.sample.examples} doing what its Javadoc
 * says, against a real Redis through the test kit. The context stays cached after the
 * class, its queue workers running on the shared test Redis: its own key prefix keeps
 * them off the queues of the other tests' applications.
 */
@WithRedis
@SpringBootTest(classes = SampleApplication.class,
		properties = { "spring.datasource.url=jdbc:h2:mem:examples;DB_CLOSE_DELAY=-1", "sample.lottery.cron=-",
				"redislock.key-prefix=examples-tests:" })
class ExamplesTests {

	@Autowired
	private RedisLockTemplate locks;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void scheduledJobSkipsItsTickWhileAnotherInstanceHoldsItsLock(@Autowired NightlyReport report) throws Exception {
		RedisLock lock = this.locks.getLock("nightly-report");
		// Another instance runs the job: the lock is taken, on another thread.
		CompletableFuture.runAsync(() -> assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue())
			.get(10, TimeUnit.SECONDS);
		int before = report.runs();
		report.run();
		assertThat(report.runs()).as("skipped, not waited").isEqualTo(before);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThatLock(this.locks, "nightly-report").isFree());
		report.run();
		assertThat(report.runs()).isEqualTo(before + 1);
		assertThatLock(this.locks, "nightly-report").as("held at least 30s after the run").isHeld();
		this.locks.getLock("nightly-report").forceUnlock();
	}

	@Test
	void fencedStoreRefusesAWriteWithAnOlderToken(@Autowired StockLevels stock, @Autowired FencedStore store) {
		String sku = "sku-" + UUID.randomUUID();
		long first = stock.set(sku, 5);
		long second = stock.set(sku, 7);
		assertThat(second).isGreaterThan(first);
		assertThat(store.read(sku)).isEqualTo("7");
		assertThatIllegalStateException().isThrownBy(() -> store.write(sku, "9", first))
			.withMessageContaining("fencing token " + first + " < " + second);
		assertThat(store.read(sku)).isEqualTo("7");
	}

	@Test
	void monoRunsUnderTheLockWhichIsReleasedWhenItCompletes(@Autowired Repricing repricing) {
		assertThat(repricing.reprice("lamp").block(Duration.ofSeconds(10)))
			.isEqualTo("lamp repriced, lock held meanwhile");
		assertThatLock(this.locks, "price:lamp").isFree();
	}

	@Test
	void semaphoreLetsTwoRenderAtOnceAndTurnsTheThirdAway(@Autowired ReportRenderer renderer) throws Exception {
		CountDownLatch finish = new CountDownLatch(1);
		// Two threads of our own: the common pool has one worker on a two-core machine,
		// and
		// it would run the second rendering only after the first had finished.
		ExecutorService callers = Executors.newFixedThreadPool(2);
		try {
			CompletableFuture<String> a = CompletableFuture.supplyAsync(() -> render(renderer, "a", finish), callers);
			CompletableFuture<String> b = CompletableFuture.supplyAsync(() -> render(renderer, "b", finish), callers);
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> renderer.rendering() == 2);
				assertThat(renderer.render("c", finish)).as("no permit left: skipped").isNull();
			}
			finally {
				finish.countDown();
			}
			assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo("a rendered");
			assertThat(b.get(10, TimeUnit.SECONDS)).isEqualTo("b rendered");
		}
		finally {
			callers.shutdownNow();
		}
	}

	@Test
	void queuedMailFailsOnceAndIsSentOnItsRetry(@Autowired WelcomeMail mail, @Autowired MailGateway gateway) {
		String to = "new-" + UUID.randomUUID() + "@example.com";
		mail.send(to);
		this.queues.awaitDrained("welcome-mail", Duration.ofSeconds(30));
		assertThat(gateway.attempts(to)).isEqualTo(2);
		this.queues.assertNoDeadLetters("welcome-mail");
	}

	private static String render(ReportRenderer renderer, String report, CountDownLatch finish) {
		try {
			return renderer.render(report, finish);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
