package io.github.redislock.test.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Gives a test class a real Redis: the JVM's {@linkplain TestRedis#shared() shared test
 * Redis}, started on first use and stopped when the JVM exits, emptied ({@code FLUSHALL})
 * before each test class that carries this annotation.
 * <p>
 * In a Spring test ({@code @SpringBootTest} and the slices) the application connects to
 * it: a {@code DataRedisConnectionDetails} bean takes precedence over whatever
 * {@code spring.data.redis.*} says (URL, password, Sentinel or Cluster included), and
 * {@code spring.data.redis.host}, {@code spring.data.redis.port} and
 * {@code spring.data.redis.url} name it for code that reads them, with
 * {@code spring.data.redis.ssl.enabled} false (Spring Boot would take TLS from a
 * {@code rediss://} URL of the application's own). A {@link TaskQueueTestSupport} bean is
 * added. Test methods and lifecycle methods may take a {@link TestRedis} parameter, also
 * outside Spring.
 * <p>
 * Spring caches test contexts: one started for an earlier class keeps running, its queue
 * workers and scheduled jobs included, on the same Redis. Give a context whose queue
 * workers must not take another context's tasks its own {@code redislock.key-prefix}, or
 * close it after its class ({@code @DirtiesContext}).
 * <p>
 * With JUnit's parallel execution, {@code @WithRedis} classes run one at a time (each
 * holds the {@link #SHARED_REDIS} resource lock, as a class that empties the Redis when
 * it starts must), while other classes run beside them.
 *
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(WithRedisExtension.class)
@ResourceLock(WithRedis.SHARED_REDIS)
public @interface WithRedis {

	/**
	 * The JUnit resource lock that each {@code @WithRedis} class holds while it runs:
	 * give it ({@code @ResourceLock(WithRedis.SHARED_REDIS)}) to another class that uses
	 * {@link TestRedis#shared()} and must not run while the Redis is emptied.
	 */
	String SHARED_REDIS = "io.github.redislock.test.support.TestRedis.shared";

	/**
	 * Whether to empty the Redis ({@code FLUSHALL}) before the annotated class's tests
	 * run. Spring contexts cached from earlier classes keep running against the same
	 * Redis: their locks and queued tasks go too.
	 * @return whether to flush before the class
	 */
	boolean flushBeforeClass() default true;

}
