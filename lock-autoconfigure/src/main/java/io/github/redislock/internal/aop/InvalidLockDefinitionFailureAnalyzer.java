package io.github.redislock.internal.aop;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up failure caused by an {@link InvalidLockDefinitionException}.
 */
class InvalidLockDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockDefinitionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockDefinitionException cause) {
		return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
	}

}
