package io.github.redislock.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Locale;

import org.opentest4j.TestAbortedException;

/**
 * Finds the {@code redis-server} program the fixture starts: {@code REDIS_SERVER} when
 * set; else {@code redis-server} on the {@code PATH}; else the binary that the
 * {@code embedded-redis} test dependency ships (Redis 6.2), so the tests also run on a
 * machine with only a JDK.
 * <p>
 * {@code REDIS_SERVER} is a path, or the name of a server that {@code .ci/build-servers}
 * built and cached: {@code valkey-9} or {@code redis-8} finds the newest
 * {@code ~/.cache/redislock-servers/valkey-9.x.y/valkey-server} (the directory
 * {@code REDISLOCK_SERVERS_CACHE} when set). The build's server matrix runs its suites
 * with such names; when the named server was not built, the tests that need it are
 * skipped (aborted, with the command that builds it), unless {@code
 * REDISLOCK_SERVER_MATRIX=required} (as in CI), where they fail.
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
		String configured = configured();
		if (configured != null) {
			return configured.contains(File.separator) ? configured
					: cached(configured, cache(), "required".equals(System.getenv("REDISLOCK_SERVER_MATRIX")));
		}
		String installed = onPath("redis-server");
		return (installed != null) ? installed : bundled().toString();
	}

	/**
	 * The server that {@code REDIS_SERVER} names, or {@code null} when it is not set.
	 */
	static String configured() {
		String configured = System.getenv("REDIS_SERVER");
		return (configured != null && !configured.isBlank()) ? configured.trim() : null;
	}

	static Path cache() {
		String cacheVariable = System.getenv("REDISLOCK_SERVERS_CACHE");
		return (cacheVariable != null && !cacheVariable.isBlank()) ? Path.of(cacheVariable)
				: Path.of(System.getProperty("user.home"), ".cache", "redislock-servers");
	}

	/**
	 * The newest server that {@code .ci/build-servers} cached under that name
	 * ({@code valkey-9}: {@code <cache>/valkey-9.*}{@code /valkey-server}); when there is
	 * none, a {@link TestAbortedException}, or an {@link IllegalStateException} when the
	 * server is required.
	 */
	static String cached(String name, Path cache, boolean required) {
		String program = name.replaceFirst("-.*", "") + "-server";
		Path found = null;
		try (var directories = Files.list(cache)) {
			found = directories
				.filter((directory) -> directory.getFileName().toString().startsWith(name + ".")
						|| directory.getFileName().toString().startsWith(name + "-")
						|| directory.getFileName().toString().equals(name))
				.map((directory) -> directory.resolve(program))
				.filter(Files::isExecutable)
				.max(Comparator.comparing((Path binary) -> binary.getParent().getFileName().toString(),
						RedisBinary::compareVersions))
				.orElse(null);
		}
		catch (IOException ex) {
			// No cache directory: nothing was built.
		}
		if (found != null) {
			return found.toString();
		}
		String message = "REDIS_SERVER=" + name + " names a server that was not built: no " + cache + "/" + name + ".*/"
				+ program + "; run .ci/build-servers to build it from Debian's source package";
		if (required) {
			throw new IllegalStateException(message);
		}
		throw new TestAbortedException(message);
	}

	private static int compareVersions(String left, String right) {
		String[] a = left.replaceFirst("^[^-]*-", "").split("[.~+-]");
		String[] b = right.replaceFirst("^[^-]*-", "").split("[.~+-]");
		for (int i = 0; i < Math.min(a.length, b.length); i++) {
			int compared = (a[i].matches("\\d+") && b[i].matches("\\d+"))
					? Integer.compare(Integer.parseInt(a[i]), Integer.parseInt(b[i])) : a[i].compareTo(b[i]);
			if (compared != 0) {
				return compared;
			}
		}
		return Integer.compare(a.length, b.length);
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
