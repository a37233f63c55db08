package io.github.redislock.internal;

/**
 * Names made safe for log lines and exception messages. Internal: not part of the
 * starter's API.
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

	private static boolean isSpecial(char c) {
		return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
	}

}
