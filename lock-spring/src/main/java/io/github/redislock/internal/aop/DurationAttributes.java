package io.github.redislock.internal.aop;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.core.env.PropertyResolver;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Reads the duration attributes of the annotations: {@code "0"}, {@code "500ms"},
 * {@code "3s"}, {@code "PT1M"}, after resolving {@code ${...}} placeholders.
 */
final class DurationAttributes {

	private DurationAttributes() {
	}

	/**
	 * @return the duration, or {@code null} when the attribute is empty
	 * @throws InvalidLockDefinitionException naming the attribute and its text when it is
	 * no duration, or negative (or zero when that is not allowed)
	 */
	static @Nullable Duration parse(PropertyResolver placeholders, String description, String attribute, String text,
			boolean zeroAllowed) {
		if (text.isEmpty()) {
			return null;
		}
		Duration duration;
		try {
			duration = DurationFormatterUtils.detectAndParse(placeholders.resolveRequiredPlaceholders(text).trim());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockDefinitionException(
					description + ": " + attribute + " '" + text + "' is not a duration: " + ex.getMessage(),
					"Write a duration such as \"0\", \"500ms\", \"3s\" or \"PT1M\", or a ${...} placeholder"
							+ " that resolves to one",
					ex);
		}
		if (duration.isNegative() || (!zeroAllowed && duration.isZero())) {
			throw new InvalidLockDefinitionException(description + ": " + attribute + " '" + text + "' must be "
					+ (zeroAllowed ? "zero or " : "") + "positive, is " + duration, "Correct the duration");
		}
		return duration;
	}

}
