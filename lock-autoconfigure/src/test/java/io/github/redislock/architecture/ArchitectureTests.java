package io.github.redislock.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering the modules promise, checked on the compiled classes of every module: no
 * package cycles, the API never reaches into the engine, the engine and the annotations
 * never into Spring Boot, and infrastructure beans are declared statically.
 */
class ArchitectureTests {

	private static final String[] API = { "io.github.redislock.core..", "io.github.redislock.queue..",
			"io.github.redislock.annotation..", "io.github.redislock.admin..", "io.github.redislock.observation..",
			"io.github.redislock.support..", "io.github.redislock.shedlock..", "io.github.redislock.integration.." };

	/**
	 * The packages of lock-core, lock-spring, lock-micrometer, lock-dashboard,
	 * lock-shedlock and lock-integration.
	 */
	private static final String[] WITHOUT_BOOT = { "io.github.redislock.core..", "io.github.redislock.queue..",
			"io.github.redislock.annotation..", "io.github.redislock.admin..", "io.github.redislock.observation..",
			"io.github.redislock.support..", "io.github.redislock.config..", "io.github.redislock.internal",
			"io.github.redislock.internal.lock..", "io.github.redislock.internal.queue..",
			"io.github.redislock.internal.admin..", "io.github.redislock.internal.aop..",
			"io.github.redislock.internal.metrics..", "io.github.redislock.internal.dashboard..",
			"io.github.redislock.shedlock..", "io.github.redislock.integration.." };

	/**
	 * The main classes of every module: this module's and its dependencies' (as jars or
	 * directories), not their tests (test-classes, and lock-core's test-jar of fixtures).
	 */
	private static final JavaClasses ALL_MODULES = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.withImportOption((location) -> !location.contains("-tests.jar"))
		.importPackages("io.github.redislock");

	@Test
	void everyModuleIsImported() {
		// The other modules arrive as jars (or their target/classes in the reactor): make
		// sure the rules below see them, so that a rule cannot pass on an empty set.
		for (String type : new String[] { "io.github.redislock.core.RedisLockTemplate",
				"io.github.redislock.internal.lock.AbstractRedisLock", "io.github.redislock.internal.aop.LockType",
				"io.github.redislock.internal.metrics.RedisLockMetrics",
				"io.github.redislock.internal.dashboard.DashboardRoutes",
				"io.github.redislock.shedlock.RedisLockProvider",
				"io.github.redislock.integration.RedisLockRegistryAdapter",
				"io.github.redislock.autoconfigure.RedisLockAutoConfiguration" }) {
			ALL_MODULES.get(type);
		}
	}

	@Test
	void noPackageCycles() {
		slices().matching("io.github.redislock.(**)").should().beFreeOfCycles().check(ALL_MODULES);
	}

	@Test
	void apiImportsNoInternals() {
		noClasses().that()
			.resideInAnyPackage(API)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("io.github.redislock.internal..", "io.github.redislock.autoconfigure..",
					"io.github.redislock.actuate..", "io.github.redislock.config..")
			.check(ALL_MODULES);
	}

	@Test
	void supportImportsNothingOfTheStarter() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.support..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("io.github.redislock.core..", "io.github.redislock.queue..",
					"io.github.redislock.annotation..", "io.github.redislock.admin..",
					"io.github.redislock.observation..", "io.github.redislock.internal..",
					"io.github.redislock.autoconfigure..", "io.github.redislock.actuate..")
			.check(ALL_MODULES);
	}

	@Test
	void internalsImportNoAutoConfiguration() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.internal..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("io.github.redislock.autoconfigure..", "io.github.redislock.actuate..")
			.check(ALL_MODULES);
	}

	@Test
	void engineAnnotationsMetersAndDashboardNeedNoSpringBoot() {
		noClasses().that()
			.resideInAnyPackage(WITHOUT_BOOT)
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.boot..")
			.check(ALL_MODULES);
	}

	@Test
	void infrastructureBeansAreStatic() {
		ArchRule rule = methods().that()
			.areAnnotatedWith(Bean.class)
			.and()
			.areDeclaredInClassesThat()
			.resideInAPackage("io.github.redislock.autoconfigure..")
			.and(com.tngtech.archunit.base.DescribedPredicate.describe("declare infrastructure", (method) -> method
				.getRawReturnType()
				.isAssignableTo(BeanPostProcessor.class)
					|| method.getRawReturnType().isAssignableTo(BeanFactoryPostProcessor.class)
					|| (method.isAnnotatedWith(Role.class)
							&& method.getAnnotationOfType(Role.class).value() == BeanDefinition.ROLE_INFRASTRUCTURE)))
			.should()
			.haveModifier(JavaModifier.STATIC);
		rule.check(ALL_MODULES);
	}

}
