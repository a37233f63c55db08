package io.github.redislock.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds the {@code redis-server} program the fixture starts: {@code REDIS_SERVER} when
 * set; else {@code redis-server} on the {@code PATH}; else the binary that the
 * {@code embedded-redis} test dependency ships (Redis 6.2), so the tests also run on a
 * machine with only a JDK.
 */
final class RedisBinary {

	private static volatile String path;

	private RedisBinary() {
	}

	static String path() {
		String result = path;
		if (result == null) {
			result = find();
			path = result;
		}
		return result;
	}

	private static String find() {
		String configured = System.getenv("REDIS_SERVER");
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		String installed = onPath("redis-server");
		return (installed != null) ? installed : bundled().toString();
	}

	private static String onPath(String program) {
		String pathVariable = System.getenv("PATH");
		if (pathVariable == null) {
			return null;
		}
		for (String directory : pathVariable.split(File.pathSeparator)) {
			File candidate = new File(directory, program);
			if (candidate.isFile() && candidate.canExecute()) {
				return candidate.getAbsolutePath();
			}
		}
		return null;
	}

	/**
	 * Extract the bundled {@code redis-server} for this platform.
	 */
	static Path bundled() {
		String resource = bundledResource();
		try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("No redis-server installed and no bundled one for this platform ("
						+ resource + "); install redis-server or set REDIS_URL");
			}
			Path target = Files.createTempDirectory("redislock-redis-bin-").resolve("redis-server");
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			if (!target.toFile().setExecutable(true)) {
				throw new IOException("Cannot make " + target + " executable");
			}
			target.toFile().deleteOnExit();
			target.getParent().toFile().deleteOnExit();
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String bundledResource() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		boolean arm = System.getProperty("os.arch").contains("aarch64")
				|| System.getProperty("os.arch").contains("arm");
		if (os.contains("mac")) {
			return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
		}
		return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
	}

}
