package io.github.redislock.admin;

/**
 * An operator's request that cannot be carried out as given (unknown queue, malformed id,
 * bad count); nothing was changed. Answered with 400 and the message.
 *
 * @since 0.1.0
 */
public class AdminRequestException extends IllegalArgumentException {

	public AdminRequestException(String message) {
		super(message);
	}

}
