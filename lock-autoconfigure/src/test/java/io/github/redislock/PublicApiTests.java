package io.github.redislock;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.core.RedisLockTemplate;
import io.github.redislock.shedlock.RedisLockProvider;
import io.github.redislock.integration.RedisLockRegistryAdapter;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the public surface: every public type outside the {@code internal} packages, with
 * its public and protected members, must be the one listed in {@code public-api.txt}, so
 * that the API changes only on purpose. After a deliberate change, run this test with
 * {@code -Dredislock.api.update=true} to rewrite the list, and check the change against
 * {@code API.md} and the README.
 */
class PublicApiTests {

	private static final Path LISTING = Path.of("src/test/resources/io/github/redislock/public-api.txt");

	/**
	 * A class of each module with public packages: lock-core, lock-spring, lock-shedlock,
	 * lock-integration and this one (lock-micrometer and lock-dashboard hold only
	 * internal packages, which {@code apiPackagesHoldOnlyTheContractAndItsConfiguration}
	 * checks).
	 */
	private static final List<Class<?>> MODULES = List.of(RedisLockTemplate.class, DistributedLock.class,
			RedisLockProvider.class, RedisLockRegistryAdapter.class, RedisLockAutoConfiguration.class);

	/** The sources of every module whose public types must say since when. */
	private static final List<Path> SOURCES = List.of(Path.of("src/main/java"), Path.of("../lock-core/src/main/java"),
			Path.of("../lock-spring/src/main/java"), Path.of("../lock-micrometer/src/main/java"),
			Path.of("../lock-dashboard/src/main/java"), Path.of("../lock-shedlock/src/main/java"),
			Path.of("../lock-integration/src/main/java"));

	private static final Pattern PUBLIC_TYPE = Pattern.compile(
			"^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|record|enum|@interface) ",
			Pattern.MULTILINE);

	@Test
	void publicSurfaceIsTheListedOne() throws Exception {
		String actual = String.join("\n", surface()) + "\n";
		if (Boolean.getBoolean("redislock.api.update")) {
			Files.writeString(LISTING, actual, StandardCharsets.UTF_8);
		}
		String expected = Files.readString(LISTING, StandardCharsets.UTF_8);
		assertThat(actual)
			.as("the public surface differs from %s; if the change is deliberate, rerun with"
					+ " -Dredislock.api.update=true and check it against API.md", LISTING)
			.isEqualTo(expected);
	}

	@Test
	void apiPackagesHoldOnlyTheContractAndItsConfiguration() throws Exception {
		List<String> surface = surface();
		assertThat(surface).as("API signatures naming internal types").noneMatch((line) -> line.contains(".internal."));
		List<String> types = surface.stream()
			.filter((line) -> line.startsWith("type "))
			.map((line) -> line.split(" ")[1])
			.toList();
		assertThat(types).contains("io.github.redislock.core.RedisLockTemplate", "io.github.redislock.core.LockContext",
				"io.github.redislock.queue.TaskQueue", "io.github.redislock.annotation.DistributedLock",
				"io.github.redislock.autoconfigure.RedisLockProperties");
		assertThat(types).noneMatch((type) -> type.contains(".internal."));
		assertThat(types).doesNotContain("io.github.redislock.core.DefaultRedisLockTemplate",
				"io.github.redislock.queue.RedisTaskQueue", "io.github.redislock.queue.QueueWorkers");
	}

	@Test
	void everyPublicTypeSaysSinceWhen() throws IOException {
		List<String> undated = new ArrayList<>();
		List<Path> files = new ArrayList<>();
		for (Path root : SOURCES) {
			assertThat(root).isDirectory();
			try (Stream<Path> sources = Files.walk(root)) {
				sources.filter((path) -> path.toString().endsWith(".java")).forEach(files::add);
			}
		}
		for (Path source : files) {
			String text = Files.readString(source, StandardCharsets.UTF_8);
			Matcher declaration = PUBLIC_TYPE.matcher(text);
			if (declaration.find()) {
				String before = text.substring(0, declaration.start());
				int docStart = before.lastIndexOf("/**");
				if (docStart < 0 || !before.substring(docStart).contains("@since")) {
					undated.add(source.toString());
				}
			}
		}
		assertThat(undated).as("public types without @since").isEmpty();
	}

	private static List<String> surface() throws IOException, URISyntaxException, ClassNotFoundException {
		List<String> lines = new ArrayList<>();
		TreeSet<String> names = new TreeSet<>();
		for (Class<?> module : MODULES) {
			Path location = Path.of(module.getProtectionDomain().getCodeSource().getLocation().toURI());
			// A module is a directory of classes in the reactor, or its jar.
			try (FileSystem jar = Files.isDirectory(location) ? null : FileSystems.newFileSystem(location)) {
				Path classes = (jar != null) ? jar.getPath("/") : location;
				try (Stream<Path> files = Files.walk(classes)) {
					files.filter((path) -> path.toString().endsWith(".class"))
						.map((path) -> classes.relativize(path).toString().replace('/', '.').replace('\\', '.'))
						.map((name) -> name.substring(0, name.length() - ".class".length()))
						.filter((name) -> name.startsWith("io.github.redislock.") && !name.contains(".internal.")
								&& !name.endsWith("package-info"))
						.forEach(names::add);
				}
			}
		}
		for (String name : names) {
			Class<?> type = Class.forName(name, false, PublicApiTests.class.getClassLoader());
			if (!isVisible(type)) {
				continue;
			}
			lines.add("type " + type.getName() + " " + kind(type) + supertypes(type));
			TreeSet<String> members = new TreeSet<>();
			for (Constructor<?> constructor : type.getDeclaredConstructors()) {
				if (isExposed(constructor.getModifiers()) && !constructor.isSynthetic()) {
					members.add("  new(" + parameters(constructor.getGenericParameterTypes()) + ")");
				}
			}
			for (Method method : type.getDeclaredMethods()) {
				if (isExposed(method.getModifiers()) && !method.isSynthetic() && !method.isBridge()) {
					members.add("  " + (Modifier.isStatic(method.getModifiers()) ? "static " : "")
							+ method.getGenericReturnType().getTypeName() + " " + method.getName() + "("
							+ parameters(method.getGenericParameterTypes()) + ")");
				}
			}
			for (Field field : type.getDeclaredFields()) {
				if (isExposed(field.getModifiers()) && !field.isSynthetic()) {
					members.add("  field " + field.getGenericType().getTypeName() + " " + field.getName());
				}
			}
			lines.addAll(members);
		}
		return lines;
	}

	private static boolean isVisible(Class<?> type) {
		for (Class<?> current = type; current != null; current = current.getDeclaringClass()) {
			if (!Modifier.isPublic(current.getModifiers()) || current.isAnonymousClass() || current.isLocalClass()) {
				return false;
			}
		}
		return true;
	}

	private static boolean isExposed(int modifiers) {
		return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
	}

	private static String kind(Class<?> type) {
		if (type.isAnnotation()) {
			return "@interface";
		}
		if (type.isInterface()) {
			return "interface";
		}
		if (type.isEnum()) {
			return "enum";
		}
		if (type.isRecord()) {
			return "record";
		}
		return (Modifier.isFinal(type.getModifiers()) ? "final " : "")
				+ (Modifier.isAbstract(type.getModifiers()) ? "abstract " : "") + "class";
	}

	private static String supertypes(Class<?> type) {
		List<String> supertypes = new ArrayList<>();
		Type superclass = type.getGenericSuperclass();
		if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
			supertypes.add(superclass.getTypeName());
		}
		Arrays.stream(type.getGenericInterfaces())
			.map(Type::getTypeName)
			.filter((name) -> !name.equals("java.lang.annotation.Annotation"))
			.forEach(supertypes::add);
		return supertypes.isEmpty() ? "" : " : " + String.join(", ", supertypes);
	}

	private static String parameters(Type[] types) {
		return Arrays.stream(types).map(Type::getTypeName).collect(Collectors.joining(", "));
	}

}
