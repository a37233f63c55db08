package io.github.redislock.internal.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds, at build time, the beans of an application whose methods carry our annotations,
 * and registers what a native image needs to run them, which only the application knows:
 * <ul>
 * <li>each annotated method, for invocation: a worker calls a {@code @QueuedTask} method
 * by reflection, and the advice reaches annotated methods through the proxy;</li>
 * <li>the parameter types of a {@code @QueuedTask} method, for Jackson (binding hints):
 * its arguments are written as JSON and read back by these types;</li>
 * <li>the parameter types of a lock-annotated method, as binding hints too: its key
 * expression reads their properties by reflection;</li>
 * <li>a lock annotation's {@code fallback} method, for invocation.</li>
 * </ul>
 * Registered in {@code META-INF/spring/aot.factories}.
 *
 * @since 0.1.0
 */
public final class AnnotatedBeanAotProcessor implements BeanRegistrationAotProcessor {

	private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
		if (!AnnotationUtils.isCandidateClass(beanClass, LockAnnotationsRuntimeHints.ANNOTATIONS)) {
			return null;
		}
		List<Method> methods = new ArrayList<>();
		ReflectionUtils.doWithMethods(beanClass, methods::add, (method) -> !annotationsOf(method).isEmpty());
		if (methods.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
			for (Method method : methods) {
				register(reflection, beanClass, method);
			}
		};
	}

	private void register(ReflectionHints reflection, Class<?> beanClass, Method method) {
		reflection.registerMethod(method, ExecutableMode.INVOKE);
		this.bindings.registerReflectionHints(reflection, method.getGenericParameterTypes());
		for (MergedAnnotation<Annotation> annotation : annotationsOf(method)) {
			String fallback = annotation.getValue("fallback", String.class).orElse("");
			if (!fallback.isEmpty()) {
				Method target = ReflectionUtils.findMethod(beanClass, fallback, method.getParameterTypes());
				if (target != null) {
					reflection.registerMethod(target, ExecutableMode.INVOKE);
				}
			}
		}
	}

	/**
	 * The annotations of ours a method carries, directly or as meta-annotations, on the
	 * method or on a method it overrides.
	 */
	private static List<MergedAnnotation<Annotation>> annotationsOf(Method method) {
		MergedAnnotations annotations = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY);
		List<MergedAnnotation<Annotation>> found = new ArrayList<>();
		for (Class<? extends Annotation> type : LockAnnotationsRuntimeHints.ANNOTATIONS) {
			MergedAnnotation<Annotation> annotation = annotations.get(type.getName());
			if (annotation.isPresent()) {
				found.add(annotation);
			}
		}
		return found;
	}

}
