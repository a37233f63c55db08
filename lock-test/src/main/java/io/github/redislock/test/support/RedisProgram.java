package io.github.redislock.test.support;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code redis-server} program to run: the one {@code REDIS_SERVER} names (a
 * path, or a program on the {@code PATH} such as {@code valkey-server}, or a server this
 * project's build cached under that name, such as {@code valkey-9}, in
 * {@code REDISLOCK_SERVERS_CACHE} or {@code ~/.cache/redislock-servers}); else
 * {@code redis-server} on the {@code PATH}; else the binary that the
 * {@code embedded-redis} dependency ships, extracted to a temporary file.
 */
final class RedisProgram {

	private static volatile @Nullable String bundled;

	private RedisProgram() {
	}

	/**
	 * Return the program {@code REDIS_SERVER} names, resolved, or {@code null} when it is
	 * not set.
	 */
	static @Nullable String configured() {
		return configured(System.getenv("REDIS_SERVER"), cache());
	}

	static @Nullable String configured(@Nullable String configured, Path cache) {
		if (configured == null || configured.isBlank()) {
			return null;
		}
		String name = configured.strip();
		if (name.contains(File.separator)) {
			if (!new File(name).canExecute()) {
				throw new IllegalStateException("REDIS_SERVER=" + name + " is not an executable file");
			}
			return name;
		}
		String found = onPath(name);
		if (found == null) {
			found = cached(name, cache);
		}
		if (found == null) {
			throw new IllegalStateException("REDIS_SERVER=" + name + " names no program on the PATH and no server"
					+ " built under " + cache + " (" + name + ".*/" + serverProgram(name)
					+ "); set it to the path of a redis-server (or valkey-server)");
		}
		return found;
	}

	/**
	 * Return the newest server cached under that name ({@code valkey-9}:
	 * {@code <cache>/valkey-9.x.y/valkey-server}, as this project's build builds them),
	 * or {@code null}.
	 */
	private static @Nullable String cached(String name, Path cache) {
		String program = serverProgram(name);
		try (Stream<Path> directories = Files.list(cache)) {
			return directories.filter((directory) -> {
				String directoryName = directory.getFileName().toString();
				return directoryName.equals(name) || directoryName.startsWith(name + ".")
						|| directoryName.startsWith(name + "-");
			})
				.filter((directory) -> Files.isExecutable(directory.resolve(program)))
				.max(Comparator.comparing((Path directory) -> String.valueOf(directory.getFileName()),
						RedisProgram::compareVersions))
				.map((directory) -> directory.resolve(program))
				.map(Path::toString)
				.orElse(null);
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static String serverProgram(String name) {
		return name.replaceFirst("-.*", "") + "-server";
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

	private static Path cache() {
		String cache = System.getenv("REDISLOCK_SERVERS_CACHE");
		return (cache != null && !cache.isBlank()) ? Path.of(cache)
				: Path.of(System.getProperty("user.home"), ".cache", "redislock-servers");
	}

	/**
	 * Return {@code redis-server} on the {@code PATH}, else the bundled binary.
	 */
	static String find() {
		String installed = onPath("redis-server");
		return (installed != null) ? installed : bundled();
	}

	private static @Nullable String onPath(String program) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String directory : path.split(File.pathSeparator)) {
			File candidate = new File(directory, program);
			if (candidate.isFile() && candidate.canExecute()) {
				return candidate.getAbsolutePath();
			}
		}
		return null;
	}

	private static synchronized String bundled() {
		String result = bundled;
		if (result == null) {
			result = extract(bundledResource()).toString();
			bundled = result;
		}
		return result;
	}

	private static Path extract(String resource) {
		try (InputStream in = RedisProgram.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("No redis-server on the PATH and no bundled one for this platform ("
						+ resource + ", from com.github.codemonstur:embedded-redis): install redis-server or set"
						+ " REDIS_SERVER to its path");
			}
			Path directory = Files.createTempDirectory("redislock-test-bin-");
			Path target = directory.resolve("redis-server");
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			if (!target.toFile().setExecutable(true)) {
				throw new IOException("Cannot make " + target + " executable");
			}
			target.toFile().deleteOnExit();
			directory.toFile().deleteOnExit();
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not extract the bundled redis-server", ex);
		}
	}

	private static String bundledResource() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch", "");
		boolean arm = arch.contains("aarch64") || arch.contains("arm");
		if (os.contains("mac")) {
			return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
		}
		return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
	}

}
