package io.github.redislock.support;

/**
 * Names made safe for log lines and exception messages, by the API's exceptions and by
 * the engine alike.
 * <p>
 * Lock names and task ids are often built from method arguments, so they may carry
 * anything a caller sends. Control characters (CR and LF above all, which would let an
 * argument forge log lines) and Unicode line and paragraph separators are written as
 * escapes ({@code \r}, {@code \n}, {@code \t}, {@code \\uXXXX}); a backslash is doubled
 * so that an escape cannot be faked either.
 *
 * @since 0.1.0
 */
public final class Printable {

	private Printable() {
	}

	/**
	 * Return the text with control characters escaped.
	 * @param text the text, may be {@code null}
	 * @return the escaped text ({@code "null"} for {@code null})
	 */
	public static String of(String text) {
		if (text == null) {
			return "null";
		}
		if (isPlain(text)) {
			return text;
		}
		StringBuilder escaped = new StringBuilder(text.length() + 16);
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '\\' -> escaped.append("\\\\");
				case '\r' -> escaped.append("\\r");
				case '\n' -> escaped.append("\\n");
				case '\t' -> escaped.append("\\t");
				default -> {
					if (isSpecial(c)) {
						escaped.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
					}
					else {
						escaped.append(c);
					}
				}
			}
		}
		return escaped.toString();
	}

	private static boolean isPlain(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\\' || isSpecial(c)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Return a failure to log in place of {@code failure}: the same stack trace, with its
	 * message and those of its causes and suppressed failures escaped, so that a message
	 * that carries an argument cannot forge log lines through the stack trace either. Its
	 * message starts with the original class's name.
	 * @param failure the failure
	 * @return the failure to log
	 */
	public static Throwable failure(Throwable failure) {
		return escaped(failure, 0);
	}

	private static Throwable escaped(Throwable failure, int depth) {
		String message = failure.getMessage();
		EscapedFailure escaped = new EscapedFailure(
				failure.getClass().getName() + ((message != null) ? ": " + of(message) : ""));
		escaped.setStackTrace(failure.getStackTrace());
		if (depth < 10) {
			Throwable cause = failure.getCause();
			if (cause != null && cause != failure) {
				escaped.initCause(escaped(cause, depth + 1));
			}
			for (Throwable suppressed : failure.getSuppressed()) {
				escaped.addSuppressed(escaped(suppressed, depth + 1));
			}
		}
		return escaped;
	}

	/**
	 * A failure as it is logged: its message names the original class and carries the
	 * original message escaped.
	 */
	static final class EscapedFailure extends RuntimeException {

		EscapedFailure(String message) {
			super(message);
		}

		@Override
		public String toString() {
			// The message already names the original class.
			return String.valueOf(getMessage());
		}

	}

	private static boolean isSpecial(char c) {
		return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
	}

}
