package io.github.redislock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that the README and the pages under {@code docs/} point at what exists: every
 * relative link at a file of the repository and, with a {@code #fragment}, at a heading
 * of that page (by GitHub's anchor rules), and every mention of a page such as
 * {@code docs/queue.md} (in the pages and in the main sources' messages) at a page that
 * is there. External {@code http(s)} links are not followed.
 */
class DocumentationLinksTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");

	private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

	private static final Pattern LINK = Pattern
		.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

	private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");

	private static final Pattern PAGE_MENTION = Pattern.compile("(?<![\\w/.-])docs/[A-Za-z0-9_.-]+\\.md");

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	@Test
	void relativeLinksPointAtExistingFilesAndHeadings() throws IOException {
		List<String> broken = new ArrayList<>();
		for (Path page : pages()) {
			List<String> lines = prose(page);
			for (int i = 0; i < lines.size(); i++) {
				Matcher link = LINK.matcher(CODE_SPAN.matcher(lines.get(i)).replaceAll(""));
				while (link.find()) {
					String problem = problem(page, link.group(1));
					if (problem != null) {
						broken.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + link.group(1) + " (" + problem + ")");
					}
				}
			}
		}
		assertThat(broken).as("broken links in the README and docs/").isEmpty();
	}

	@Test
	void pagesNamedInTheDocumentationAndTheSourcesExist() throws IOException {
		List<Path> files = new ArrayList<>(pages());
		try (Stream<Path> modules = Files.list(ROOT)) {
			for (Path main : modules.map((module) -> module.resolve("src/main/java"))
				.filter(Files::isDirectory)
				.toList()) {
				try (Stream<Path> sources = Files.walk(main)) {
					sources.filter((source) -> source.toString().endsWith(".java")).forEach(files::add);
				}
			}
		}
		List<String> missing = new ArrayList<>();
		for (Path file : files) {
			List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
			for (int i = 0; i < lines.size(); i++) {
				Matcher mention = PAGE_MENTION.matcher(lines.get(i));
				while (mention.find()) {
					if (!Files.isRegularFile(ROOT.resolve(mention.group()))) {
						missing.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + mention.group());
					}
				}
			}
		}
		assertThat(missing).as("mentions of pages that do not exist").isEmpty();
	}

	@Test
	void anchorsFollowGitHubsRules() {
		assertThat(anchor("Scheduled jobs: one instance per tick")).isEqualTo("scheduled-jobs-one-instance-per-tick");
		assertThat(anchor("Which mode should I use?")).isEqualTo("which-mode-should-i-use");
		assertThat(anchor("Spring AOT and native images")).isEqualTo("spring-aot-and-native-images");
		assertThat(anchor("`@QueuedTask` and [the queue](queue.md)")).isEqualTo("queuedtask-and-the-queue");
	}

	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/** The page's lines with those of fenced code blocks blanked (keeps line numbers). */
	private static List<String> prose(Path page) throws IOException {
		List<String> lines = new ArrayList<>();
		boolean fenced = false;
		for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
			boolean fence = line.strip().startsWith("```") || line.strip().startsWith("~~~");
			lines.add((fenced || fence) ? "" : line);
			if (fence) {
				fenced = !fenced;
			}
		}
		return lines;
	}

	private String problem(Path page, String target) throws IOException {
		if (target.matches("(?i)^(https?|mailto):.*")) {
			return null;
		}
		int hash = target.indexOf('#');
		String path = (hash < 0) ? target : target.substring(0, hash);
		Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
		if (!file.startsWith(ROOT)) {
			return "outside the repository";
		}
		if (!Files.exists(file)) {
			return "no such file";
		}
		if (hash >= 0) {
			if (!file.toString().endsWith(".md")) {
				return "a fragment on a file that is not a page";
			}
			String fragment = target.substring(hash + 1);
			if (!anchorsOf(file).contains(fragment)) {
				return "no heading with the anchor #" + fragment + " in " + ROOT.relativize(file);
			}
		}
		return null;
	}

	private Set<String> anchorsOf(Path page) throws IOException {
		Set<String> found = this.anchors.get(page);
		if (found == null) {
			found = new LinkedHashSet<>();
			Map<String, Integer> seen = new HashMap<>();
			for (String line : prose(page)) {
				Matcher heading = HEADING.matcher(line);
				if (heading.matches()) {
					String anchor = anchor(heading.group(1));
					int count = seen.merge(anchor, 1, Integer::sum);
					found.add((count == 1) ? anchor : anchor + "-" + (count - 1));
				}
				Matcher html = HTML_ANCHOR.matcher(line);
				while (html.find()) {
					found.add(html.group(1));
				}
			}
			this.anchors.put(page, found);
		}
		return found;
	}

	/**
	 * GitHub's anchor of a heading: the text without its links' targets, lower case,
	 * every character but letters, digits, spaces, hyphens and underscores dropped,
	 * spaces as hyphens.
	 */
	static String anchor(String heading) {
		String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
		return text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
	}

}
