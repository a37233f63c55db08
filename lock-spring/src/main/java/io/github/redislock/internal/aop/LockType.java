package io.github.redislock.internal.aop;

import java.lang.annotation.Annotation;
import java.util.List;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.DistributedSemaphore;
import io.github.redislock.annotation.ReadLock;
import io.github.redislock.annotation.WriteLock;
import io.github.redislock.core.LockKind;
import io.github.redislock.core.RedisLock;
import io.github.redislock.core.RedisLockTemplate;

/**
 * The kinds of lock an annotation asks for.
 */
enum LockType {

	EXCLUSIVE(DistributedLock.class),

	READ(ReadLock.class),

	WRITE(WriteLock.class),

	SEMAPHORE(DistributedSemaphore.class);

	static final List<Class<? extends Annotation>> ANNOTATIONS = List.of(DistributedLock.class, ReadLock.class,
			WriteLock.class, DistributedSemaphore.class);

	private final Class<? extends Annotation> annotation;

	LockType(Class<? extends Annotation> annotation) {
		this.annotation = annotation;
	}

	LockKind kind() {
		return switch (this) {
			case EXCLUSIVE -> LockKind.EXCLUSIVE;
			case READ -> LockKind.READ;
			case WRITE -> LockKind.WRITE;
			case SEMAPHORE -> LockKind.SEMAPHORE;
		};
	}

	Class<? extends Annotation> annotation() {
		return this.annotation;
	}

	RedisLock lock(RedisLockTemplate template, String name) {
		return switch (this) {
			case EXCLUSIVE -> template.getLock(name);
			case READ -> template.getReadWriteLock(name).readLock();
			case WRITE -> template.getReadWriteLock(name).writeLock();
			case SEMAPHORE -> throw new IllegalStateException("A semaphore needs its permits: see LockOperation");
		};
	}

}
