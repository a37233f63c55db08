package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.core.OnLockLost;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

/**
 * Configuration properties of the distributed locks, under {@code redislock}. Redis
 * itself is configured with Spring Boot's {@code spring.data.redis.*}.
 */
@ConfigurationProperties("redislock")
public class RedisLockProperties {

	/**
	 * Whether to enable the distributed locks. When false no bean of the starter is
	 * registered and annotated methods run as plain methods.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and channel the locks use. Must not contain '{' or '}'.
	 */
	private String keyPrefix = "redislock";

	/**
	 * Lease of locks taken without a fixed lease. The watchdog renews it every third of
	 * this while the lock is held, so it bounds how long a crashed holder blocks others.
	 */
	private Duration leaseTime = Duration.ofSeconds(30);

	/**
	 * How long annotated methods wait for their lock when the annotation sets no
	 * waitTime.
	 */
	private Duration waitTime = Duration.ofSeconds(10);

	/**
	 * What releasing a lock that was lost while held does: 'throw' a LockLostException,
	 * or 'log' a warning only.
	 */
	private OnLockLost onLockLost = OnLockLost.THROW;

	/**
	 * Order of the lock advice among the advice on a bean. Lower runs outside: the
	 * default runs just outside @Transactional (Ordered.LOWEST_PRECEDENCE), so the lock
	 * is taken before the transaction begins and released after it commits.
	 */
	private int adviceOrder = Ordered.LOWEST_PRECEDENCE - 100;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public OnLockLost getOnLockLost() {
		return this.onLockLost;
	}

	public void setOnLockLost(OnLockLost onLockLost) {
		this.onLockLost = onLockLost;
	}

	public int getAdviceOrder() {
		return this.adviceOrder;
	}

	public void setAdviceOrder(int adviceOrder) {
		this.adviceOrder = adviceOrder;
	}

}
