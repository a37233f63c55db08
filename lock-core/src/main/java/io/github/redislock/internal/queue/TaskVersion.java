package io.github.redislock.internal.queue;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

/**
 * The version of a {@code @QueuedTask} method that a task's payload was written for, as
 * recorded with the task: the method's declared {@code version} and a digest of its
 * parameter types, written {@code "version:digest"}. The digest tells a payload of the
 * same declared version but another signature (a method changed without raising its
 * version) from one the method can read.
 *
 * @param version the declared version ({@code 1} when none was recorded)
 * @param signature the digest of the parameter types, or {@code null} when none was
 * recorded (a task of the plain {@code TaskQueue} API, or of an earlier release)
 * @since 0.1.0
 */
public record TaskVersion(int version, @Nullable String signature) {

	/**
	 * Return the version tag recorded with the tasks a method enqueues.
	 * @param method the {@code @QueuedTask} method
	 * @param version its declared version
	 * @return {@code "version:digest"}
	 */
	public static String tag(Method method, int version) {
		return version + ":" + signature(method);
	}

	/**
	 * Read a recorded version tag.
	 * @param tag the tag ({@code ""} when none was recorded)
	 * @return the version; version {@code 1} without a signature when the tag is empty or
	 * not one this release writes (a version of ASCII digits, from 1 to 999,999,999)
	 */
	static TaskVersion parse(String tag) {
		int colon = tag.indexOf(':');
		if (colon > 0 && colon <= 9 && tag.chars().limit(colon).allMatch((c) -> c >= '0' && c <= '9')) {
			int version = Integer.parseInt(tag, 0, colon, 10);
			if (version >= 1) {
				return new TaskVersion(version, tag.substring(colon + 1));
			}
		}
		// Not one this release writes: as if none was recorded.
		return new TaskVersion(1, null);
	}

	/**
	 * The first 8 bytes of the SHA-256 of the method's generic parameter types, in hex.
	 */
	static String signature(Method method) {
		StringBuilder types = new StringBuilder();
		for (Type type : method.getGenericParameterTypes()) {
			types.append(type.getTypeName()).append(',');
		}
		try {
			byte[] hash = MessageDigest.getInstance("SHA-256")
				.digest(types.toString().getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(hash, 0, 8);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

}
