package io.github.redislock.internal.lock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.PartitionSelectorException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the acquire and release scripts directly on the shared native Lettuce connection
 * of a {@link LettuceConnectionFactory}: the same connection Spring Data Redis would use,
 * without creating a connection wrapper, proxies and serializers per call, which cost
 * more than the script on a fast network. Failures are translated as Spring Data Redis
 * translates them, so callers see the same {@link DataAccessException}s. Public for the
 * task queue's scripts (another internal package).
 *
 * @since 0.1.0
 */
public final class LettuceScripts {

	private static final LettuceExceptionConverter EXCEPTIONS = new LettuceExceptionConverter();

	private final LettuceConnectionFactory connectionFactory;

	/**
	 * Opened on first use and again when closed: set under this monitor, read without it.
	 */
	private volatile @Nullable RedisScriptingAsyncCommands<byte[], byte[]> commands;

	private LettuceScripts(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Return a runner for the factory, or {@code null} when it does not share one native
	 * connection (then scripts go through the factory's connections).
	 */
	public static @Nullable LettuceScripts of(RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection()) {
			return new LettuceScripts(lettuce);
		}
		return null;
	}

	/**
	 * Run a script with an integer result, by EVALSHA, loading it with EVAL when Redis
	 * does not have it.
	 */
	public @Nullable Long run(RedisScript<Long> script, byte[][] keys, byte[][] args) {
		Duration timeout = this.connectionFactory.getClientConfiguration().getCommandTimeout();
		try {
			try {
				return evalsha(commands(), script, keys, args, timeout);
			}
			catch (RuntimeException ex) {
				if (!unrouted(ex) || !reloadView(timeout)) {
					throw ex;
				}
				return evalsha(commands(), script, keys, args, timeout);
			}
		}
		catch (RuntimeException ex) {
			throw translate(ex);
		}
	}

	/**
	 * Whether a call failed because the client could not route it: its view of the
	 * cluster has no master for the call's slot (Lettuce may have taken the view of a
	 * node that just joined and knows no slots yet). Such a call is made again, once,
	 * after the view was reloaded. Mostly it was never sent; a command that Lettuce
	 * re-routes after a cut (at-least-once) may have run before, which is the exposure
	 * Lettuce's own re-send has anyway: every script the engine and the queue send is
	 * safe to run twice for the same caller.
	 */
	static boolean unrouted(@Nullable Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof PartitionSelectorException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Reload the client's view of the cluster, waiting up to {@code timeout}.
	 * @return whether it is a Cluster client (whose view was reloaded, or tried to)
	 */
	private boolean reloadView(Duration timeout) {
		if (!(this.connectionFactory.getNativeClient() instanceof RedisClusterClient cluster)) {
			return false;
		}
		try {
			cluster.refreshPartitionsAsync().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			// The call made again fails as it did.
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return true;
	}

	private CompletableFuture<@Nullable Object> reloadViewAsync() {
		if (this.connectionFactory.getNativeClient() instanceof RedisClusterClient cluster) {
			return cluster.refreshPartitionsAsync().toCompletableFuture().thenApply((done) -> null);
		}
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Run a script with a list result, by EVALSHA (EVAL when Redis does not have it), and
	 * answer as Spring Data Redis's {@code StringRedisTemplate} would: bulk strings as
	 * UTF-8 strings, integers as {@code Long}s, nested lists as lists.
	 */
	public @Nullable List<@Nullable Object> runList(RedisScript<?> script, byte[][] keys, byte[][] args) {
		Duration timeout = this.connectionFactory.getClientConfiguration().getCommandTimeout();
		try {
			Object answer;
			try {
				answer = evalList(script, keys, args, timeout);
			}
			catch (RuntimeException ex) {
				if (!unrouted(ex) || !reloadView(timeout)) {
					throw ex;
				}
				answer = evalList(script, keys, args, timeout);
			}
			return (answer instanceof List<?> list) ? strings(list) : null;
		}
		catch (RuntimeException ex) {
			throw translate(ex);
		}
	}

	private @Nullable Object evalList(RedisScript<?> script, byte[][] keys, byte[][] args, Duration timeout) {
		RedisScriptingAsyncCommands<byte[], byte[]> commands = commands();
		try {
			return await(commands.evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, args), timeout);
		}
		catch (RedisNoScriptException ex) {
			return await(commands.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8),
					ScriptOutputType.MULTI, keys, args), timeout);
		}
	}

	private static List<@Nullable Object> strings(List<?> values) {
		List<@Nullable Object> result = new ArrayList<>(values.size());
		for (Object value : values) {
			if (value instanceof byte[] bytes) {
				result.add(new String(bytes, StandardCharsets.UTF_8));
			}
			else if (value instanceof List<?> nested) {
				result.add(strings(nested));
			}
			else {
				result.add(value);
			}
		}
		return result;
	}

	/**
	 * Return the arguments of a script call as UTF-8 bytes.
	 */
	public static byte[][] bytes(List<String> values) {
		byte[][] bytes = new byte[values.size()][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return bytes;
	}

	/**
	 * Run a script with an integer result without waiting: EVALSHA, then EVAL when Redis
	 * does not have it. The future completes on Lettuce's I/O thread, with Spring's
	 * exceptions; it fails when no answer came within the factory's command timeout.
	 */
	CompletableFuture<@Nullable Long> runAsync(RedisScript<Long> script, byte[][] keys, byte[][] args) {
		return runAsync(script, ScriptOutputType.INTEGER, keys, args,
				this.connectionFactory.getClientConfiguration().getCommandTimeout());
	}

	/**
	 * Run a script with a list of integers as its result without waiting, as
	 * {@link #runAsync(RedisScript, byte[][], byte[][])} does, failing when no answer
	 * came within {@code timeout}.
	 */
	CompletableFuture<@Nullable List<Object>> runListAsync(RedisScript<?> script, byte[][] keys, byte[][] args,
			Duration timeout) {
		return runAsync(script, ScriptOutputType.MULTI, keys, args, timeout);
	}

	/**
	 * Send a {@code PING} on the shared native connection without waiting. The future
	 * completes on Lettuce's I/O thread, failures translated as Spring Data Redis
	 * translates them; it is not timed here.
	 */
	CompletableFuture<@Nullable String> pingAsync() {
		RedisScriptingAsyncCommands<byte[], byte[]> commands;
		try {
			commands = commands();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translate(ex));
		}
		if (!(commands instanceof BaseRedisAsyncCommands<?, ?> base)) {
			return CompletableFuture
				.failedFuture(new IllegalStateException("Cannot PING on " + commands.getClass().getName()));
		}
		return base.ping().toCompletableFuture().exceptionallyCompose((failure) -> {
			Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
			return CompletableFuture.failedFuture(translate(failure(cause)));
		});
	}

	private <T> CompletableFuture<@Nullable T> runAsync(RedisScript<?> script, ScriptOutputType type, byte[][] keys,
			byte[][] args, Duration timeout) {
		return this.<T>runOnceAsync(script, type, keys, args, timeout).exceptionallyCompose((failure) -> {
			if (!unrouted(failure)) {
				return CompletableFuture.failedFuture(failure);
			}
			return AsyncTimeouts.within(reloadViewAsync(), timeout, () -> new TimeoutException("view not reloaded"))
				.handle((reloaded, ex) -> null)
				.thenCompose((reloaded) -> this.<T>runOnceAsync(script, type, keys, args, timeout));
		});
	}

	private <T> CompletableFuture<@Nullable T> runOnceAsync(RedisScript<?> script, ScriptOutputType type, byte[][] keys,
			byte[][] args, Duration timeout) {
		RedisScriptingAsyncCommands<byte[], byte[]> commands;
		try {
			commands = commands();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translate(ex));
		}
		CompletableFuture<@Nullable T> answer = commands.<@Nullable T>evalsha(script.getSha1(), type, keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((failure) -> {
				Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
				if (cause instanceof RedisNoScriptException) {
					return commands
						.<@Nullable T>eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), type, keys,
								args)
						.toCompletableFuture();
				}
				return CompletableFuture.failedFuture(cause);
			});
		return AsyncTimeouts
			.within(answer, timeout, () -> new RedisCommandTimeoutException("Command timed out after " + timeout))
			.exceptionallyCompose((failure) -> {
				Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
				return CompletableFuture.failedFuture(translate(failure(cause)));
			});
	}

	/**
	 * The one EVALSHA path of the engine's Lettuce calls: EVALSHA, and EVAL once when the
	 * server does not have the script yet (a restart, a new replica promoted, SCRIPT
	 * FLUSH). Failures are Lettuce's; callers translate them.
	 * @param timeout how long to wait for each answer
	 */
	static @Nullable Long evalsha(RedisScriptingAsyncCommands<byte[], byte[]> commands, RedisScript<Long> script,
			byte[][] keys, byte[][] args, Duration timeout) {
		try {
			return await(commands.evalsha(script.getSha1(), ScriptOutputType.INTEGER, keys, args), timeout);
		}
		catch (RedisNoScriptException ex) {
			return await(commands.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8),
					ScriptOutputType.INTEGER, keys, args), timeout);
		}
	}

	@SuppressWarnings("unchecked")
	private RedisScriptingAsyncCommands<byte[], byte[]> commands() {
		RedisScriptingAsyncCommands<byte[], byte[]> commands = this.commands;
		if (commands == null || !isOpen(commands)) {
			synchronized (this) {
				commands = this.commands;
				if (commands == null || !isOpen(commands)) {
					try (RedisConnection connection = this.connectionFactory.getConnection()) {
						commands = (RedisScriptingAsyncCommands<byte[], byte[]>) connection.getNativeConnection();
					}
					this.commands = commands;
				}
			}
		}
		return commands;
	}

	private static boolean isOpen(Object commands) {
		if (commands instanceof RedisAsyncCommands<?, ?> standalone) {
			return standalone.getStatefulConnection().isOpen();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return cluster.getStatefulConnection().isOpen();
		}
		return true;
	}

	/**
	 * Wait for a Lettuce command's answer as Spring Data Redis would: its failure
	 * unwrapped, a timeout cancelling the command.
	 */
	static <T> @Nullable T await(RedisFuture<T> future, Duration timeout) {
		try {
			return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisCommandInterruptedException(ex);
		}
		catch (ExecutionException ex) {
			throw failure(ex.getCause());
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new RedisCommandTimeoutException("Command timed out after " + timeout);
		}
	}

	/**
	 * Return what a command failed with as an unchecked exception: an I/O failure (a
	 * connection reset while a Sentinel fails over, say) is a connection failure that the
	 * engine retries within the wait time, not an error of the caller's.
	 */
	private static RuntimeException failure(@Nullable Throwable cause) {
		if (cause instanceof RuntimeException runtime) {
			return runtime;
		}
		if (cause instanceof IOException io) {
			return new RedisConnectionFailureException("Redis connection failed: " + io.getMessage(), io);
		}
		return new IllegalStateException(cause);
	}

	static RuntimeException translate(RuntimeException ex) {
		if (ex instanceof DataAccessException) {
			return ex;
		}
		DataAccessException translated = EXCEPTIONS.translateExceptionIfPossible(ex);
		return (translated != null) ? translated : ex;
	}

}
