package io.github.redislock.shedlock;

import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisMode;
import io.github.redislock.test.RedisTargets;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock's own conformance suite for extensible lock providers
 * ({@code shedlock-test-support}, unchanged: acquisition, exclusion, expiry,
 * {@code lockAtLeastFor}, extension and its invalidation, and its {@code FuzzTester} on
 * one provider) against {@link RedisLockProvider} on a real Redis server and on a Redis
 * Cluster. Only the hooks are ours: the provider, and whether Redis has the lock.
 */
@ExtendWith(RedisExtension.class)
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
class RedisLockProviderConformanceTests extends AbstractExtensibleLockProviderIntegrationTest {

	private final Instances instances;

	private final RedisLockTemplate template;

	private final RedisLockProvider provider;

	RedisLockProviderConformanceTests(RedisMode mode, RedisTargets targets) {
		this.instances = new Instances(targets.get(mode));
		this.template = this.instances.template();
		this.provider = new RedisLockProvider(this.template);
	}

	@AfterEach
	void close() throws Exception {
		this.instances.close();
	}

	@Override
	protected ExtensibleLockProvider getLockProvider() {
		return this.provider;
	}

	@Override
	protected void assertUnlocked(String lockName) {
		assertThat(this.template.getLock(lockName).isLocked()).as("'%s' is locked in Redis", lockName).isFalse();
	}

	@Override
	protected void assertLocked(String lockName) {
		assertThat(this.template.getLock(lockName).isLocked()).as("'%s' is locked in Redis", lockName).isTrue();
	}

}
