package io.github.redislock.internal.aop;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a method with both {@code @Transactional} and {@code @DistributedLock}, the lock is
 * taken before the transaction begins and released after it commits, so the next holder
 * reads committed data.
 */
@ExtendWith(RedisExtension.class)
class LockAndTransactionOrderTests {

	private final ApplicationContextRunner runner;

	LockAndTransactionOrderTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					JdbcTemplateAutoConfiguration.class, TransactionAutoConfiguration.class,
					RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
			.withPropertyValues(redis.springProperties())
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID(), "spring.sql.init.mode=never")
			.withBean(StockService.class);
	}

	@Test
	void lockIsStillHeldWhenTheTransactionCommits() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			StockService service = context.getBean(StockService.class);
			service.createTable();
			service.decrement("apple");
			assertThat(service.heldAtCommit()).isTrue();
			assertThat(service.transactionActiveInside()).isTrue();
			assertThat(context.getBean(RedisLockTemplate.class).getLock("stock:apple").isLocked()).isFalse();
		});
	}

	@Test
	void lockInsideTheTransactionIsReleasedBeforeTheCommitWhenTheOrderIsInverted() {
		// The same check fails when the lock advice runs inside the transaction advice:
		// it
		// proves that the ordering above is the advice order at work, not chance.
		this.runner.withUserConfiguration(TransactionsOutside.class).run((context) -> {
			StockService service = context.getBean(StockService.class);
			service.createTable();
			service.decrement("pear");
			assertThat(service.heldAtCommit()).isFalse();
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = Ordered.HIGHEST_PRECEDENCE)
	static class TransactionsOutside {

	}

	static class StockService {

		final AtomicReference<Boolean> heldAtCommit = new AtomicReference<>();

		final AtomicReference<Boolean> transactionActiveInside = new AtomicReference<>();

		@Autowired
		JdbcTemplate jdbc;

		@Autowired
		RedisLockTemplate locks;

		// Read through methods: fields of a class-based proxy are not the target's.
		public Boolean heldAtCommit() {
			return this.heldAtCommit.get();
		}

		public Boolean transactionActiveInside() {
			return this.transactionActiveInside.get();
		}

		public void createTable() {
			this.jdbc.execute("create table if not exists stock (item varchar(20) primary key, amount int)");
		}

		@Transactional
		@DistributedLock(name = "stock", key = "#item", waitTime = "0")
		public void decrement(String item) {
			this.transactionActiveInside.set(TransactionSynchronizationManager.isActualTransactionActive());
			this.jdbc.update("merge into stock key (item) values (?, 10)", item);
			this.jdbc.update("update stock set amount = amount - 1 where item = ?", item);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					StockService.this.heldAtCommit.set(StockService.this.locks.getLock("stock:" + item).isLocked());
				}

			});
		}

	}

}
