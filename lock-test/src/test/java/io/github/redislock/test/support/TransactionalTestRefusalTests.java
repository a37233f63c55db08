package io.github.redislock.test.support;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * In a {@code @Transactional} test (the default of {@code @DataJpaTest}) a
 * {@code @QueuedTask} call is enqueued when the test's transaction commits, which it
 * never does: the kit's waits and inline runs refuse to run there, saying why, instead of
 * passing with nothing sent (the hostile review of #33 proved awaitDrained and
 * assertNoDeadLetters passed without the task ever enqueued). Without the transaction
 * they work.
 */
@WithRedis
@Transactional
@SpringBootTest(classes = { KitReviewApp.class, TransactionalTestRefusalTests.Transactions.class },
		properties = { "redislock.queue.workers=0", "redislock.key-prefix=kit-tx:" })
class TransactionalTestRefusalTests {

	@Autowired
	private KitReviewApp.GuardedMailer mailer;

	@Autowired
	private KitReviewApp.Guarded guarded;

	@Autowired
	private TaskQueueTestSupport queues;

	@Test
	void theKitRefusesToWaitOrRunInsideTheTestsTransaction() {
		this.mailer.send("tx@example.com");
		assertThatIllegalStateException().isThrownBy(() -> this.queues.awaitDrained("guarded", Duration.ofSeconds(5)))
			.withMessageContaining("inside a transaction")
			.withMessageContaining("Propagation.NOT_SUPPORTED");
		assertThatIllegalStateException().isThrownBy(() -> this.queues.awaitAllDrained(Duration.ofSeconds(5)))
			.withMessageContaining("inside a transaction");
		assertThatIllegalStateException().isThrownBy(() -> this.queues.runQueuedTasks("guarded"))
			.withMessageContaining("inside a transaction");
	}

	@Test
	@Transactional(propagation = Propagation.NOT_SUPPORTED)
	void withoutTheTransactionTheTaskIsSentAndRun() {
		this.mailer.send("no-tx@example.com");
		assertThat(this.queues.runQueuedTasks("guarded")).isEqualTo(1);
		this.queues.awaitDrained("guarded", Duration.ofSeconds(5));
		assertThat(this.guarded.sent()).contains("no-tx@example.com");
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Transactions {

		/** A transaction manager as a DataSource would bring; it does nothing itself. */
		@Bean
		PlatformTransactionManager transactionManager() {
			return new AbstractPlatformTransactionManager() {

				@Override
				protected Object doGetTransaction() {
					return new Object();
				}

				@Override
				protected void doBegin(Object transaction, TransactionDefinition definition) {
				}

				@Override
				protected void doCommit(DefaultTransactionStatus status) {
				}

				@Override
				protected void doRollback(DefaultTransactionStatus status) {
				}

			};
		}

	}

}
