package io.github.redislock.internal.boot;

import io.github.redislock.internal.aop.InvalidLockDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up failure caused by an {@link InvalidLockDefinitionException}.
 *
 * @since 0.1.0
 */
public class InvalidLockDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockDefinitionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockDefinitionException cause) {
		return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
	}

}
