package io.github.redislock.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Hints for a native image: the Lua scripts the engine reads from the class path as it
 * starts ({@code ClassPathResource}s next to the classes that run them). Registered in
 * {@code META-INF/spring/aot.factories}: every application that has the engine needs
 * them, whatever it configures.
 *
 * @since 0.1.0
 */
public final class LuaScriptsRuntimeHints implements RuntimeHintsRegistrar {

	/** Every script, in whichever package of the engine it sits. */
	static final String SCRIPTS = "io/github/redislock/internal/**/*.lua";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
	}

}
