package io.github.redislock.faults;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.core.LockAcquisitionException;
import io.github.redislock.core.LockContext;
import io.github.redislock.core.LockLostException;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisReadWriteLock;
import io.github.redislock.internal.lock.DefaultRedisLockTemplate;
import io.github.redislock.internal.lock.LockSettings;
import io.github.redislock.test.CommandCounter;
import io.github.redislock.test.LocalRedisServer;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.LockRecords;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Hostile input and hostile operations: odd lock names, injection attempts, a huge number
 * of names, scripts flushed mid-run and wrong credentials (the README's least-privilege
 * ACL user is {@code AclUserApplicationTests}'s).
 */
@ExtendWith(RedisExtension.class)
class HostileInputTests {

	private final LocalRedisServer redis;

	private final StringRedisTemplate raw;

	private final List<DefaultRedisLockTemplate> templates = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	HostileInputTests(RedisServers servers) {
		this.redis = servers.start();
		this.raw = this.redis.template();
	}

	@AfterEach
	void close() throws Exception {
		for (DefaultRedisLockTemplate template : this.templates) {
			template.destroy();
		}
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	private DefaultRedisLockTemplate template(RedisConnectionFactory connectionFactory) {
		DefaultRedisLockTemplate template = new DefaultRedisLockTemplate(connectionFactory, LockSettings.DEFAULTS);
		this.templates.add(template);
		return template;
	}

	private DefaultRedisLockTemplate template() {
		return template(this.redis.connectionFactory());
	}

	private LettuceConnectionFactory factory(String username, String password) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(this.redis.host(),
				this.redis.port());
		configuration.setUsername(username);
		configuration.setPassword(password);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return factory;
	}

	/**
	 * Keys in Redis, not counting the instance records that lock templates keep of
	 * themselves (for holder lookups), which belong to no lock.
	 */
	private long keyCount() {
		// One snapshot: a record may be written or expire between two calls.
		return this.raw.keys("*").stream().filter((key) -> !key.startsWith("redislock:instance:")).count();
	}

	@Test
	void controlCharactersInANameCannotForgeLogLinesOrMessages() throws Exception {
		String name = "order:42\r\n2026-01-01 WARN forged line\u2028x\tz\\n";
		DefaultRedisLockTemplate template = template();
		RedisLock holder = template.getLock(name);
		java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
		try {
			assertThat(other.submit(() -> holder.tryLock(Duration.ZERO, null)).get()).isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> template.execute(name, Duration.ZERO, null, () -> "never"))
				.satisfies((ex) -> {
					assertThat(ex.getLockName()).isEqualTo(name);
					assertThat(ex.getMessage()).doesNotContain("\r", "\n", "\u2028", "\t")
						.contains("order:42\\r\\n2026-01-01 WARN forged line\\u2028x\\tz\\\\n");
				});
			assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(holder::unlock)
				.satisfies((ex) -> assertThat(ex.getMessage()).doesNotContain("\r", "\n"));
			this.raw.delete("redislock:" + io.github.redislock.internal.HashTags.of(name));
			Future<?> release = other.submit(holder::unlock);
			assertThatExceptionOfType(java.util.concurrent.ExecutionException.class).isThrownBy(release::get)
				.havingCause()
				.isInstanceOf(LockLostException.class)
				.satisfies((ex) -> assertThat(ex.getMessage()).doesNotContain("\r", "\n"));
		}
		finally {
			other.shutdownNow();
		}
	}

	@Test
	void emptyAndOverlongNamesAreRefusedBeforeAnythingReachesRedis() {
		DefaultRedisLockTemplate template = template();
		long keys = keyCount();
		assertThatIllegalArgumentException().isThrownBy(() -> template.getLock("")).withMessageContaining("empty");
		assertThatIllegalArgumentException().isThrownBy(() -> template.getLock(" \t")).withMessageContaining("empty");
		String huge = "x".repeat(1024 * 1024);
		assertThatIllegalArgumentException().isThrownBy(() -> template.getLock(huge))
			.withMessageContaining("1048576 characters long")
			.withMessageContaining("use shorter keys")
			.satisfies((ex) -> assertThat(ex.getMessage()).hasSizeLessThan(300));
		assertThatIllegalArgumentException().isThrownBy(() -> template.getReadWriteLock(huge));
		assertThat(keyCount()).isEqualTo(keys);
	}

	@Test
	void namesWithBracesGlobAndControlCharactersAreLocksOfTheirOwnInOneSlot() {
		DefaultRedisLockTemplate template = template();
		List<String> names = List.of("}", "{", "{}", "}{", "a}", "a\\)", "a\\", "}leading", "{user}:1", "{user}:2", "*",
				"?", "[a-z]*", "line\r\nbreak", "nul\0byte", "tab\tand\u001b[31mescape", "ünïcödé ✓", "a b");
		List<RedisLock> held = new ArrayList<>();
		for (String name : names) {
			RedisLock lock = template.getLock(name);
			assertThat(lock.tryLock(Duration.ZERO, null)).as("lock named %s", name).isTrue();
			held.add(lock);
		}
		// Every name is its own lock: all held at once, one key each (beside the
		// instance records of the templates, which belong to no lock).
		Set<String> keys = new java.util.HashSet<>(this.raw.keys("redislock:{*"));
		assertThat(keys.stream().filter((key) -> !key.endsWith(":fence"))).hasSize(names.size());
		for (String key : keys) {
			String base = key.endsWith(":fence") ? key.substring(0, key.length() - ":fence".length()) : key;
			assertThat(ClusterSlotHashUtil.calculateSlot(key)).as("slot of %s", key)
				.isEqualTo(ClusterSlotHashUtil.calculateSlot(base));
			String tag = base.substring("redislock:{".length(), base.length() - 1);
			assertThat(tag).as("a non-empty hash tag for %s", key).isNotEmpty().doesNotContain("}");
		}
		for (RedisLock lock : held) {
			lock.unlock();
		}
		assertThat(this.raw.keys("redislock:*")).as("released: kept only as records of the last token")
			.allMatch((key) -> key.startsWith("redislock:instance:") || !LockRecords.isHeld(this.raw, key));
		RedisReadWriteLock readWrite = template.getReadWriteLock("}{rw*");
		assertThat(readWrite.writeLock().tryLock(Duration.ZERO, null)).isTrue();
		readWrite.writeLock().unlock();
	}

	@Test
	void oneHundredThousandDistinctNamesLeaveNoLocalStateBehind() throws Exception {
		DefaultRedisLockTemplate template = template();
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		lockMany(template, 2_000, "warm-up");
		long before = usedHeapAfterGc(memory);
		lockMany(template, 100_000, UUID.randomUUID().toString());
		long after = usedHeapAfterGc(memory);
		assertThat(template.getHeldLocks()).isEmpty();
		assertThat(template.getActiveHoldCount()).isZero();
		// A leak of even 100 bytes a name would be 10 MB.
		assertThat(after - before).as("heap growth in bytes").isLessThan(10L * 1024 * 1024);
	}

	private static void lockMany(DefaultRedisLockTemplate template, int count, String prefix) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int first = t;
				work.add(threads.submit(() -> {
					for (int i = first; i < count; i += 8) {
						RedisLock lock = template.getLock(prefix + ":" + i);
						if (!lock.tryLock(Duration.ZERO, Duration.ofSeconds(10))) {
							throw new IllegalStateException("not acquired: " + i);
						}
						lock.unlock();
					}
				}));
			}
			for (Future<?> future : work) {
				future.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static long usedHeapAfterGc(MemoryMXBean memory) throws InterruptedException {
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			System.gc();
			Thread.sleep(50);
			used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
		}
		return used;
	}

	@Test
	void spelInArgumentValuesIsDataNotCode() {
		LockApplicationContextRunner.on(this.redis)
			.withUserConfiguration(DocumentsConfiguration.class)
			.run((context) -> {
				Documents documents = context.getBean(Documents.class);
				for (String attack : List.of("T(java.lang.Runtime).getRuntime().exec('touch /tmp/pwned')",
						"#{T(java.lang.System).exit(1)}", "${user.home}", "' + #root + '", "new java.io.File('/')")) {
					assertThat(documents.edit(attack)).isEqualTo("doc:" + attack);
				}
			});
	}

	@Test
	void scriptFlushMidRunReloadsOnceAndDoesNothingTwice() throws Exception {
		DefaultRedisLockTemplate template = template();
		CommandCounter counter = new CommandCounter(this.redis);
		RedisLock lock = template.getLock("flushed");
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		lock.unlock();
		flushScripts();
		long evalsBefore = counter.calls("eval");
		long shasBefore = counter.calls("evalsha");
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(counter.calls("eval") - evalsBefore).as("one reload (EVAL) after a NOSCRIPT").isEqualTo(1);
		assertThat(counter.calls("evalsha") - shasBefore).as("the failed EVALSHA").isEqualTo(1);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		// Under contention, with scripts flushed again and again: exclusion holds, no
		// effect is doubled.
		AtomicBoolean flushing = new AtomicBoolean(true);
		Thread flusher = new Thread(() -> {
			while (flushing.get()) {
				flushScripts();
				try {
					Thread.sleep(5);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		});
		flusher.start();
		int[] counter2 = new int[1];
		ExecutorService threads = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				work.add(threads.submit(() -> {
					for (int i = 0; i < 200; i++) {
						lock.lock();
						try {
							int value = counter2[0];
							Thread.yield();
							counter2[0] = value + 1;
						}
						finally {
							lock.unlock();
						}
					}
				}));
			}
			for (Future<?> future : work) {
				future.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			flushing.set(false);
			flusher.join();
			threads.shutdownNow();
		}
		assertThat(counter2[0]).isEqualTo(800);
		assertThat(lock.isLocked()).isFalse();
	}

	private void flushScripts() {
		this.raw.execute((RedisCallback<Object>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
	}

	@Test
	void wrongPasswordFailsNamingTheLockAndTheCauseWithoutRevealingThePassword() {
		this.raw.execute((RedisCallback<Object>) (connection) -> connection.execute("ACL", "SETUSER".getBytes(),
				"locker".getBytes(), "on".getBytes(), ">right-secret".getBytes(), "~*".getBytes(), "+@all".getBytes()));
		RedisLock lock = template(factory("locker", "wrong-secret")).getLock("guarded");
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> lock.tryLock(Duration.ZERO, null))
			.withMessageContaining("'guarded'")
			.withMessageContaining("Redis is unreachable or did not answer")
			.satisfies((ex) -> assertThat(stackText(ex)).containsIgnoringCase("WRONGPASS")
				.doesNotContain("wrong-secret")
				.doesNotContain("right-secret"));
	}

	private static String stackText(Throwable ex) {
		StringBuilder text = new StringBuilder();
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			text.append(cause).append('\n');
		}
		return text.toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class DocumentsConfiguration {

		@Bean
		Documents documents() {
			return new Documents();
		}

	}

	static class Documents {

		@DistributedLock(name = "doc", key = "#id", waitTime = "0")
		public String edit(String id) {
			return LockContext.lockName();
		}

	}

}
