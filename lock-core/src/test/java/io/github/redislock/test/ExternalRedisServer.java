package io.github.redislock.test;

import java.net.URI;

/**
 * The Redis named by the {@code REDIS_URL} environment variable
 * ({@code redis://[user:password@]host:port}); the fixture neither starts nor stops it.
 */
final class ExternalRedisServer extends RedisServer {

	private final URI uri;

	ExternalRedisServer(String url) {
		this.uri = URI.create(url);
	}

	@Override
	public String host() {
		return this.uri.getHost();
	}

	@Override
	public int port() {
		return (this.uri.getPort() > 0) ? this.uri.getPort() : 6379;
	}

	@Override
	public String password() {
		String userInfo = this.uri.getUserInfo();
		if (userInfo == null || userInfo.isEmpty()) {
			return null;
		}
		int colon = userInfo.indexOf(':');
		return (colon >= 0) ? userInfo.substring(colon + 1) : userInfo;
	}

	@Override
	protected void stop() {
	}

	@Override
	public String toString() {
		return "Redis at " + host() + ":" + port() + " (REDIS_URL)";
	}

}
