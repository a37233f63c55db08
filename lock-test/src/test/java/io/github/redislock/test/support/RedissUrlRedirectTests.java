package io.github.redislock.test.support;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose production URL is {@code rediss://} (TLS, the common case for a
 * managed Redis) reaches the plain-text test Redis: Spring Boot switches TLS on from the
 * URL whatever connection details point elsewhere, so the kit sets the URL too, with TLS
 * off. From the hostile review of #33 (the handshake timed out before).
 */
@WithRedis
@SpringBootTest(classes = KitTestApplication.class,
		properties = { "spring.data.redis.url=rediss://app:secret@redis.prod.example.com:6380",
				"redislock.key-prefix=review-tls-url:" })
class RedissUrlRedirectTests {

	@Autowired
	private StringRedisTemplate redis;

	@Test
	void applicationWithARedissUrlReachesTheTestRedis(TestRedis testRedis) {
		this.redis.opsForValue().set("kit:tls-url", "yes");
		assertThat(testRedis.command("EXISTS kit:tls-url")).isEqualTo(":1");
	}

}
