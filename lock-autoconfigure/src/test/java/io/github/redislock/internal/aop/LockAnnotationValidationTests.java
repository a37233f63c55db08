package io.github.redislock.internal.aop;

import java.util.concurrent.CompletableFuture;

import io.github.redislock.internal.boot.InvalidLockDefinitionFailureAnalyzer;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.test.LockApplicationContextRunner;
import io.github.redislock.test.RedisExtension;
import io.github.redislock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock annotations that cannot work stop the application at start-up, naming the method
 * and the offending text.
 */
@ExtendWith(RedisExtension.class)
class LockAnnotationValidationTests {

	private final ApplicationContextRunner runner;

	LockAnnotationValidationTests(RedisServer redis) {
		this.runner = LockApplicationContextRunner.on(redis);
	}

	private void assertStartFails(Class<?> service, String... messageParts) {
		this.runner.withBean(service).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).isInstanceOf(BeanCreationException.class);
			String message = invalidDefinition(failure).getMessage();
			assertThat(message).contains(service.getSimpleName() + ".call(");
			for (String part : messageParts) {
				assertThat(message).contains(part);
			}
		});
	}

	private static InvalidLockDefinitionException invalidDefinition(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidLockDefinitionException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("No InvalidLockDefinitionException in " + failure, failure);
	}

	@Test
	void malformedKeyExpression() {
		assertStartFails(MalformedKey.class, "'#orderId +'", "not valid SpEL");
	}

	@Test
	void keyExpressionNamingNoParameter() {
		assertStartFails(UnknownParameter.class, "'#orderld'", "refers to no parameter", "[orderId]");
	}

	@Test
	void keyExpressionWithParameterIndexOutOfRange() {
		assertStartFails(IndexOutOfRange.class, "'#p1'", "refers to no parameter");
	}

	@Test
	void keyExpressionWithTypeReference() {
		assertStartFails(TypeReferenceKey.class, "T(java.lang.Runtime)", "only read the method's arguments");
	}

	@Test
	void keyExpressionCallingAMethod() {
		assertStartFails(MethodCallKey.class, "'#orderId.toString()'", "only read the method's arguments");
	}

	@Test
	void keyExpressionCallingAConstructor() {
		assertStartFails(ConstructorKey.class, "new java.io.File", "only read the method's arguments");
	}

	@Test
	void keyExpressionReferencingABean() {
		assertStartFails(BeanReferenceKey.class, "@redisLockTemplate", "only read the method's arguments");
	}

	@Test
	void keyExpressionIncrementingAnArgument() {
		assertStartFails(IncrementingKey.class, "'#p0++'", "only read the method's arguments");
		assertStartFails(DecrementingKey.class, "'#orderId--'", "only read the method's arguments");
	}

	@Test
	void parameterNamedLikeAnIndexVariableOfAnotherParameter() {
		assertStartFails(ShadowingParameter.class, "ShadowingParameter.call(String, long)", "parameter 'a1'",
				"#a1 would be ambiguous");
	}

	@Test
	void badWaitTime() {
		assertStartFails(BadWaitTime.class, "waitTime '3 parsecs'", "not a duration");
	}

	@Test
	void unresolvableWaitTimePlaceholder() {
		assertStartFails(UnresolvablePlaceholder.class, "waitTime '${no.such.property}'");
	}

	@Test
	void unparsableHoldAtLeast() {
		assertStartFails(BadHoldAtLeast.class, "holdAtLeast 'one minute'", "not a duration");
	}

	@Test
	void negativeHoldAtLeast() {
		assertStartFails(NegativeHoldAtLeast.class, "holdAtLeast '-5s'", "zero or positive");
	}

	@Test
	void holdAtLeastLongerThanAFixedLease() {
		assertStartFails(HoldAtLeastBeyondLease.class, "holdAtLeast '1m'", "longer than the fixed leaseTime (PT30S)");
	}

	@Test
	void unparsableMaxHold() {
		assertStartFails(BadMaxHold.class, "maxHold 'forever'", "not a duration");
	}

	@Test
	void zeroMaxHold() {
		assertStartFails(ZeroMaxHold.class, "maxHold '0'", "must be positive");
	}

	@Test
	void maxHoldShorterThanTheLease() {
		this.runner.withPropertyValues("redislock.lease-time=10s")
			.withBean(MaxHoldBelowLease.class)
			.run((context) -> assertThat(invalidDefinition(context.getStartupFailure()).getMessage())
				.contains("MaxHoldBelowLease.call()", "maxHold '5s'", "shorter than the lease (PT10S"));
	}

	@Test
	void maxHoldWithAFixedLease() {
		assertStartFails(MaxHoldWithFixedLease.class, "maxHold '1m'", "no effect with a fixed leaseTime");
	}

	@Test
	void negativeLeaseTime() {
		assertStartFails(NegativeLease.class, "leaseTime '-1s'", "positive");
	}

	@Test
	void missingFallback() {
		assertStartFails(MissingFallback.class, "fallback method 'busy'", "not found", "found only [",
				"MissingFallback.busy()]");
	}

	@Test
	void fallbackReturningAnotherType() {
		assertStartFails(FallbackOfOtherType.class, "fallback method", "returns Integer, not String");
	}

	/**
	 * A final method cannot be intercepted by the class-based proxy: its calls would run
	 * without the lock.
	 */
	@Test
	void aFinalMethodIsRefused() {
		assertStartFails(FinalMethod.class, "the method is final", "the lock would never be taken");
	}

	/**
	 * A Kotlin suspend function returns when it first suspends: the lock would be
	 * released before its work is done.
	 */
	@Test
	void aKotlinSuspendFunctionIsRefused() {
		assertStartFails(SuspendFunction.class, "Kotlin suspend function", "released before its work is done");
	}

	static class FinalMethod {

		@DistributedLock
		public final void call(String name) {
		}

	}

	static class SuspendFunction {

		// What the Kotlin compiler makes of: suspend fun call(name: String)
		@DistributedLock
		public Object call(String name, kotlin.coroutines.Continuation<? super Object> continuation) {
			return "COROUTINE_SUSPENDED";
		}

	}

	@Test
	void anAsynchronousTypeTheLockCannotFollowIsRefused() {
		assertStartFails(AsyncResult.class, "returns Future", "a type the lock cannot follow");
	}

	@Test
	void aPlainPublisherIsRefused() {
		assertStartFails(PublisherResult.class, "returns Publisher");
	}

	@Test
	void redlockOnAnAsynchronousMethodIsRefused() {
		assertStartFails(AsyncRedLock.class, "redlock = true on a method returning CompletableFuture");
	}

	@Test
	void aFallbackOfAnotherAsynchronousTypeIsRefused() {
		assertStartFails(AsyncFallbackOfAnotherType.class, "fallback method", "returns CompletableFuture, not Mono");
	}

	@Test
	void redlockWithoutNodes() {
		assertStartFails(RedLockWithoutNodes.class, "redislock.redlock.nodes");
	}

	@Test
	void annotatedBeanWithoutRedisFailsAtStart() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
					RedisLockAnnotationAutoConfiguration.class))
			.withUserConfiguration(ValidConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(invalidDefinition(context.getStartupFailure()))
					.hasMessageContaining("no RedisConnectionFactory")
					.hasMessageContaining("'valid'");
			});
	}

	@Test
	void failureAnalysisDescribesTheMistakeAndTheAction() {
		this.runner.withBean(UnknownParameter.class).run((context) -> {
			FailureAnalysis analysis = new InvalidLockDefinitionFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("UnknownParameter.call(long)").contains("'#orderld'");
			assertThat(analysis.getAction()).contains("parameter names");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ValidConfiguration {

		@Bean
		Valid valid() {
			return new Valid();
		}

	}

	static class Valid {

		@DistributedLock(key = "#orderId")
		public void call(long orderId) {
		}

	}

	static class MalformedKey {

		@DistributedLock(key = "#orderId +")
		public void call(long orderId) {
		}

	}

	static class IncrementingKey {

		@DistributedLock(key = "#p0++")
		public void call(long orderId) {
		}

	}

	static class DecrementingKey {

		@DistributedLock(key = "#orderId--")
		public void call(long orderId) {
		}

	}

	static class ShadowingParameter {

		@DistributedLock(key = "#a1")
		public void call(String a1, long amount) {
		}

	}

	static class UnknownParameter {

		@DistributedLock(key = "#orderld")
		public void call(long orderId) {
		}

	}

	static class IndexOutOfRange {

		@DistributedLock(key = "#p1")
		public void call(long orderId) {
		}

	}

	static class TypeReferenceKey {

		@DistributedLock(key = "T(java.lang.Runtime).getRuntime()")
		public void call(long orderId) {
		}

	}

	static class MethodCallKey {

		@DistributedLock(key = "#orderId.toString()")
		public void call(Long orderId) {
		}

	}

	static class ConstructorKey {

		@DistributedLock(key = "new java.io.File('/tmp')")
		public void call(long orderId) {
		}

	}

	static class BeanReferenceKey {

		@DistributedLock(key = "@redisLockTemplate")
		public void call(long orderId) {
		}

	}

	static class BadWaitTime {

		@DistributedLock(waitTime = "3 parsecs")
		public void call() {
		}

	}

	static class UnresolvablePlaceholder {

		@DistributedLock(waitTime = "${no.such.property}")
		public void call() {
		}

	}

	static class BadHoldAtLeast {

		@DistributedLock(holdAtLeast = "one minute")
		public void call() {
		}

	}

	static class NegativeHoldAtLeast {

		@DistributedLock(holdAtLeast = "-5s")
		public void call() {
		}

	}

	static class HoldAtLeastBeyondLease {

		@DistributedLock(leaseTime = "30s", holdAtLeast = "1m")
		public void call() {
		}

	}

	static class BadMaxHold {

		@DistributedLock(maxHold = "forever")
		public void call() {
		}

	}

	static class ZeroMaxHold {

		@DistributedLock(maxHold = "0")
		public void call() {
		}

	}

	static class MaxHoldBelowLease {

		@DistributedLock(maxHold = "5s")
		public void call() {
		}

	}

	static class MaxHoldWithFixedLease {

		@DistributedLock(leaseTime = "30s", maxHold = "1m")
		public void call() {
		}

	}

	static class NegativeLease {

		@DistributedLock(leaseTime = "-1s")
		public void call() {
		}

	}

	static class MissingFallback {

		@DistributedLock(fallback = "busy")
		public String call(String user) {
			return user;
		}

		public String busy() {
			return "busy";
		}

	}

	static class FallbackOfOtherType {

		@DistributedLock(fallback = "busy")
		public String call(String user) {
			return user;
		}

		public Integer busy(String user) {
			return 0;
		}

	}

	static class AsyncResult {

		@DistributedLock
		public java.util.concurrent.Future<String> call() {
			return CompletableFuture.completedFuture("x");
		}

	}

	static class PublisherResult {

		@DistributedLock
		public org.reactivestreams.Publisher<String> call() {
			return reactor.core.publisher.Mono.just("x");
		}

	}

	static class AsyncRedLock {

		@DistributedLock(redlock = true)
		public CompletableFuture<String> call() {
			return CompletableFuture.completedFuture("x");
		}

	}

	static class AsyncFallbackOfAnotherType {

		@DistributedLock(fallback = "busy")
		public reactor.core.publisher.Mono<String> call() {
			return reactor.core.publisher.Mono.just("x");
		}

		public CompletableFuture<String> busy() {
			return CompletableFuture.completedFuture("busy");
		}

	}

	static class RedLockWithoutNodes {

		@DistributedLock(redlock = true)
		public void call() {
		}

	}

}
