package io.github.redislock.internal.aop;

import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.annotation.QueuedTask;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Hints for a native image: the annotations read at run time. Their attributes are read
 * through {@code MergedAnnotations}, which calls the annotation type's methods
 * reflectively; and an annotation composed from ours with {@code @AliasFor} is
 * synthesized as a JDK proxy of our annotation type. Registered in
 * {@code META-INF/spring/aot.factories}.
 *
 * @since 0.1.0
 * @see AnnotatedBeanAotProcessor
 */
public final class LockAnnotationsRuntimeHints implements RuntimeHintsRegistrar {

	/** Every annotation the advice and the queue read. */
	static final List<Class<? extends Annotation>> ANNOTATIONS;

	static {
		List<Class<? extends Annotation>> annotations = new ArrayList<>(LockType.ANNOTATIONS);
		annotations.add(QueuedTask.class);
		ANNOTATIONS = List.copyOf(annotations);
	}

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (Class<? extends Annotation> annotation : ANNOTATIONS) {
			hints.reflection().registerType(annotation, MemberCategory.INVOKE_DECLARED_METHODS);
			hints.proxies().registerJdkProxy(annotation);
		}
	}

}
