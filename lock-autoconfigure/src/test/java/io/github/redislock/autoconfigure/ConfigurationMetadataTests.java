package io.github.redislock.autoconfigure;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE metadata generated from {@link RedisLockProperties} and the additional
 * metadata: every property documented, the defaults an IDE cannot infer stated, value
 * hints present.
 */
class ConfigurationMetadataTests {

	private final JsonNode metadata = read();

	private static JsonNode read() {
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			return new JsonMapper().readTree(in);
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private JsonNode property(String name) {
		for (JsonNode property : this.metadata.get("properties")) {
			if (property.get("name").asString().equals(name)) {
				return property;
			}
		}
		throw new AssertionError("No metadata for " + name);
	}

	@Test
	void everyPropertyIsDocumented() {
		List<String> undocumented = new ArrayList<>();
		for (JsonNode property : this.metadata.get("properties")) {
			JsonNode description = property.get("description");
			if (description == null || description.asString().isBlank()) {
				undocumented.add(property.get("name").asString());
			}
		}
		assertThat(undocumented).isEmpty();
		assertThat(this.metadata.get("properties")).hasSizeGreaterThan(25);
	}

	@Test
	void defaultsAnIdeCannotInferAreStated() {
		assertThat(property("redislock.advice-order").get("defaultValue").asLong()).isEqualTo(Integer.MAX_VALUE - 100);
		assertThat(property("redislock.lease-time").get("defaultValue").asString()).isEqualTo("30s");
		assertThat(property("redislock.max-hold").get("description").asString()).contains("None by default");
	}

	@Test
	void valueHintsArePresent() {
		List<String> hinted = new ArrayList<>();
		this.metadata.get("hints").forEach((hint) -> hinted.add(hint.get("name").asString()));
		assertThat(hinted).contains("redislock.queue.workers", "redislock.min-replicas-acked");
	}

}
