package io.github.redislock.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.core.RedisLockTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Lua scripts reach a native image: every script the engine's jar holds, found on the
 * class path here, so that a script added without its hint fails.
 */
class LuaScriptsRuntimeHintsTests {

	@Test
	void everyScriptOfTheEngineIsARegisteredResource() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new LuaScriptsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		List<String> scripts = scriptsOfTheEngine();
		assertThat(scripts).as("the engine's scripts")
			.hasSizeGreaterThan(20)
			.contains("io/github/redislock/internal/lock/acquire.lua",
					"io/github/redislock/internal/queue/enqueue.lua");
		for (String script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource(script)).as(script).accepts(hints);
		}
	}

	@Test
	void registrarIsListedForSpringAot() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(LuaScriptsRuntimeHints.class);
	}

	/**
	 * The class path's {@code .lua} files that come from where the engine's classes do
	 * (its jar, or its classes directory in the build): not the tests' own scripts.
	 */
	private static List<String> scriptsOfTheEngine() throws IOException {
		String engine = RedisLockTemplate.class.getProtectionDomain().getCodeSource().getLocation().toString();
		List<String> scripts = new ArrayList<>();
		for (Resource script : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/redislock/**/*.lua")) {
			String url = script.getURL().toString();
			int root = url.indexOf(engine);
			if (root >= 0) {
				String path = url.substring(root + engine.length());
				scripts.add(path.startsWith("!/") ? path.substring(2) : path);
			}
		}
		return scripts;
	}

}
