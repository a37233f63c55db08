package io.github.redislock.autoconfigure;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.actuate.endpoint.RedisLockEndpoint;
import io.github.redislock.admin.DeadLetterPreview;
import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.admin.TaskPreview;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockHolder;
import io.github.redislock.internal.dashboard.DashboardRoutes;
import io.github.redislock.internal.dashboard.DashboardRuntimeHints;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the dashboard and the endpoint need in a native image: the dashboard's assets
 * (every one its jar holds, so that a new one without a hint fails) and the records both
 * write as JSON.
 */
class WebRuntimeHintsTests {

	@Test
	void everyDashboardAssetIsARegisteredResource() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new DashboardRuntimeHints().registerHints(hints, getClass().getClassLoader());
		String jar = DashboardRoutes.class.getProtectionDomain().getCodeSource().getLocation().toString();
		List<String> assets = new ArrayList<>();
		for (Resource asset : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/redislock/**/*.*")) {
			String url = asset.getURL().toString();
			int root = url.indexOf(jar);
			if (root >= 0 && !url.endsWith(".class")) {
				String path = url.substring(root + jar.length());
				assets.add(path.startsWith("!/") ? path.substring(2) : path);
			}
		}
		assertThat(assets).contains("io/github/redislock/internal/dashboard/index.html",
				"io/github/redislock/internal/dashboard/dashboard.js");
		for (String asset : assets) {
			assertThat(RuntimeHintsPredicates.resource().forResource(asset)).as(asset).accepts(hints);
		}
	}

	@Test
	void dashboardAnswersAreWritableAsJson() throws ClassNotFoundException {
		RuntimeHints hints = new RuntimeHints();
		new DashboardRuntimeHints().registerHints(hints, getClass().getClassLoader());
		for (String row : new String[] { "LockView", "DeadLetterRow", "UpcomingRow" }) {
			Class<?> type = Class.forName(DashboardRoutes.class.getName() + "$" + row);
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(row).accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RedisLockAdmin.QueueSummary.class, "ready"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DeadTask.class, "payload")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TaskEntry.class, "payload")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LockHolder.class, "host")).accepts(hints);
	}

	@Test
	void endpointAnswersAreWritableAsJson() {
		RuntimeHints hints = new RuntimeHints();
		new RedisLockEndpointAutoConfiguration.EndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());
		for (Class<?> type : new Class<?>[] { RedisLockEndpoint.RedisLockDescriptor.class,
				RedisLockEndpoint.QueueDescriptor.class, RedisLockEndpoint.HolderDescriptor.class, HeldLock.class,
				LockHolder.class, RedisLockAdmin.QueueDetails.class, RedisLockAdmin.QueueSummary.class,
				DeadLetterPreview.class, TaskPreview.class, DeadTask.class, TaskEntry.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(RedisLockAdmin.QueueDetails.class, "deadLetters")).accepts(hints);
	}

}
