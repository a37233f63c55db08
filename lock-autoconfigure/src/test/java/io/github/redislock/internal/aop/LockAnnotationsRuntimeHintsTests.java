package io.github.redislock.internal.aop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.SimpleMetadataReaderFactory;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The annotations reach a native image readable and synthesizable: every annotation type
 * of the API package, found on the class path here, so that a new one without its hints
 * fails.
 */
class LockAnnotationsRuntimeHintsTests {

	@Test
	void everyAnnotationOfTheApiIsReadableAndSynthesizable() throws Exception {
		RuntimeHints hints = new RuntimeHints();
		new LockAnnotationsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		List<Class<?>> annotations = annotationTypes();
		assertThat(annotations).hasSizeGreaterThanOrEqualTo(5);
		for (Class<?> annotation : annotations) {
			assertThat(RuntimeHintsPredicates.reflection()
				.onType(annotation)
				.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).as("%s read", annotation).accepts(hints);
			assertThat(RuntimeHintsPredicates.proxies().forInterfaces(annotation)).as("%s synthesized", annotation)
				.accepts(hints);
		}
	}

	private static List<Class<?>> annotationTypes() throws IOException, ClassNotFoundException {
		SimpleMetadataReaderFactory readers = new SimpleMetadataReaderFactory();
		List<Class<?>> annotations = new ArrayList<>();
		for (Resource type : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/redislock/annotation/**/*.class")) {
			MetadataReader reader = readers.getMetadataReader(type);
			if (reader.getClassMetadata().isAnnotation()) {
				annotations.add(ClassUtils.forName(reader.getClassMetadata().getClassName(), null));
			}
		}
		return annotations;
	}

}
