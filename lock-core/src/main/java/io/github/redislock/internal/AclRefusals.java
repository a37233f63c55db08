package io.github.redislock.internal;

import org.jspecify.annotations.Nullable;

/**
 * Recognises Redis refusing a call to the application's ACL user. A command the client
 * sends is refused with {@code NOPERM}; a command a Lua script calls is refused with an
 * {@code ERR} whose text differs by server ("The user executing the script can't ..." on
 * Redis 7.0, "ACL failure in script: ..." on Redis 7.2+, 8 and Valkey). Either stays
 * until an operator changes the user, so no retry can help.
 *
 * @since 0.1.0
 */
public final class AclRefusals {

	private AclRefusals() {
	}

	/**
	 * Whether the failure, or one of its causes, is Redis refusing a command, key or
	 * channel to the ACL user.
	 * @param failure a failure of a Redis call
	 * @return whether an ACL refused it
	 */
	public static boolean isRefusal(@Nullable Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (isRefusal(cause.getMessage())) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	/**
	 * Whether an error reply of Redis is an ACL refusal.
	 * @param message the error text
	 * @return whether an ACL refused the call
	 */
	public static boolean isRefusal(@Nullable String message) {
		return message != null && (message.startsWith("NOPERM") || message.contains("ACL failure in script")
				|| message.contains("The user executing the script can't"));
	}

}
