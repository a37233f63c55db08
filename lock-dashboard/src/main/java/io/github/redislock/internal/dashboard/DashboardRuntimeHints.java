package io.github.redislock.internal.dashboard;

import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.core.LockHolder;
import io.github.redislock.queue.DeadTask;
import io.github.redislock.queue.TaskEntry;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Hints for a native image: the dashboard's page and assets, read from the class path
 * when the routes are built, and the records its JSON answers are written from (Jackson
 * reads their accessors by reflection). Imported by the dashboard's auto-configuration.
 *
 * @since 0.1.0
 */
public final class DashboardRuntimeHints implements RuntimeHintsRegistrar {

	private static final String ASSETS = "io/github/redislock/internal/dashboard/";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (String extension : new String[] { "html", "css", "js" }) {
			hints.resources().registerPattern(ASSETS + "*." + extension);
		}
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
				DashboardRoutes.LockView.class, DashboardRoutes.DeadLetterRow.class, DashboardRoutes.UpcomingRow.class,
				RedisLockAdmin.QueueSummary.class, DeadTask.class, TaskEntry.class, LockHolder.class);
	}

}
