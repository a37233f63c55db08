package io.github.redislock.internal;

/**
 * Cluster hash tags made from names. Internal: not part of the starter's API.
 * <p>
 * In the tag, a backslash of the name is written as two backslashes and a closing brace
 * as a backslash and {@code )}: a closing brace would end the tag early (a name starting
 * with one would give an empty tag, which Redis ignores, scattering the keys of one name
 * over slots), and the escape keeps distinct names on distinct keys.
 *
 * @since 0.1.0
 */
public final class HashTags {

	private HashTags() {
	}

	/**
	 * Return {@code {name}} with the name escaped.
	 * @param name the name
	 * @return the hash tag, braces included
	 */
	public static String of(String name) {
		if (name.indexOf('}') < 0 && name.indexOf('\\') < 0) {
			return "{" + name + "}";
		}
		StringBuilder tag = new StringBuilder(name.length() + 8).append('{');
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c == '\\') {
				tag.append("\\\\");
			}
			else if (c == '}') {
				tag.append("\\)");
			}
			else {
				tag.append(c);
			}
		}
		return tag.append('}').toString();
	}

	/**
	 * Check that a key prefix cannot set or break a hash tag.
	 * @param keyPrefix the prefix
	 * @throws IllegalArgumentException when it is empty or contains a brace
	 */
	public static void checkPrefix(String keyPrefix) {
		if (keyPrefix == null || keyPrefix.isBlank()) {
			throw new IllegalArgumentException("'keyPrefix' must not be empty");
		}
		if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException(
					"'keyPrefix' must not contain '{' or '}' (they set the Cluster hash tag): " + keyPrefix);
		}
	}

}
