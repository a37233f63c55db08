package io.github.redislock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code redis-lock-bom} in step with the reactor: it manages every published
 * module (every module of the root pom, profiles included, but those that set
 * {@code maven.deploy.skip}) at the project's version and nothing else, and carries the
 * metadata it cannot inherit, having no parent. A module added without its line in the
 * BOM fails here.
 */
class PublishedModulesTests {

	private static final Path ROOT = Path.of("..");

	private static final String GROUP_ID = "io.github.redislock";

	private final Element parent = read(ROOT.resolve("pom.xml"));

	private final Element bom = read(ROOT.resolve("lock-bom/pom.xml"));

	@Test
	void bomManagesExactlyThePublishedModules() {
		List<String> published = new ArrayList<>(publishedModules().values());
		published.remove("redis-lock-bom");
		List<Element> managed = managedDependencies(this.bom);
		assertThat(managed).allSatisfy((dependency) -> {
			assertThat(text(dependency, "groupId")).isEqualTo(GROUP_ID);
			assertThat(text(dependency, "version")).isEqualTo("${project.version}");
			assertThat(text(dependency, "type")).as("type").isNull();
			assertThat(text(dependency, "classifier")).as("classifier").isNull();
			assertThat(text(dependency, "scope")).as("scope").isNull();
		});
		assertThat(managed.stream().map((dependency) -> text(dependency, "artifactId")))
			.containsExactlyInAnyOrderElementsOf(published);
	}

	@Test
	void bomIsAModuleOfTheReactorWithoutParentAtTheReactorsVersion() {
		assertThat(publishedModules()).containsEntry("lock-bom", "redis-lock-bom");
		assertThat(child(this.bom, "parent")).isNull();
		assertThat(text(this.bom, "packaging")).isEqualTo("pom");
		assertThat(text(this.bom, "groupId")).isEqualTo(text(this.parent, "groupId"));
		assertThat(text(this.bom, "version")).isEqualTo(text(this.parent, "version"));
	}

	@Test
	void bomNamesTheParentsFormatterVersion() {
		Element plugin = children(child(child(child(this.bom, "build"), "pluginManagement"), "plugins"), "plugin")
			.get(0);
		assertThat(text(plugin, "artifactId")).isEqualTo("spring-javaformat-maven-plugin");
		assertThat(text(plugin, "version"))
			.isEqualTo(text(child(this.parent, "properties"), "spring-javaformat.version"));
	}

	@Test
	void bomCarriesTheParentsPublicationMetadata() {
		for (String name : List.of("url", "inceptionYear", "licenses", "developers", "scm")) {
			Element ours = child(this.bom, name);
			assertThat(ours).as(name).isNotNull();
			assertThat(normalized(ours)).as(name).isEqualTo(normalized(child(this.parent, name)));
		}
	}

	@Test
	void parentManagesEveryPublishedModule() {
		List<String> managed = managedDependencies(this.parent).stream()
			.filter((dependency) -> GROUP_ID.equals(text(dependency, "groupId")) && text(dependency, "type") == null)
			.map((dependency) -> text(dependency, "artifactId"))
			.toList();
		List<String> published = new ArrayList<>(publishedModules().values());
		published.remove("redis-lock-bom");
		assertThat(managed).containsExactlyInAnyOrderElementsOf(published);
	}

	/** Folder to artifactId of every module of the root pom that is deployed. */
	private Map<String, String> publishedModules() {
		Map<String, String> published = new TreeMap<>();
		NodeList modules = this.parent.getElementsByTagName("module");
		for (int i = 0; i < modules.getLength(); i++) {
			String folder = modules.item(i).getTextContent().strip();
			Element pom = read(ROOT.resolve(folder).resolve("pom.xml"));
			Element properties = child(pom, "properties");
			boolean skipped = properties != null && "true".equals(text(properties, "maven.deploy.skip"));
			if (!skipped) {
				published.put(folder, text(pom, "artifactId"));
			}
		}
		return published;
	}

	private static List<Element> managedDependencies(Element pom) {
		Element management = child(pom, "dependencyManagement");
		assertThat(management).isNotNull();
		return children(child(management, "dependencies"), "dependency");
	}

	private static Element read(Path pom) {
		assertThat(pom).isRegularFile();
		try (var in = Files.newInputStream(pom)) {
			DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
			factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
			Document document = factory.newDocumentBuilder().parse(in);
			return document.getDocumentElement();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot read " + pom, ex);
		}
	}

	private static String normalized(Element element) {
		return element.getTextContent().strip().replaceAll("\\s+", " ");
	}

	private static String text(Element element, String name) {
		Element child = child(element, name);
		return (child != null) ? child.getTextContent().strip() : null;
	}

	private static Element child(Element element, String name) {
		List<Element> children = children(element, name);
		return children.isEmpty() ? null : children.get(0);
	}

	private static List<Element> children(Element element, String name) {
		List<Element> children = new ArrayList<>();
		for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element child && child.getTagName().equals(name)) {
				children.add(child);
			}
		}
		return children;
	}

}
