package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A master, one replica and three Sentinels (quorum 2), all local processes, ready once
 * every Sentinel knows the replica and the other Sentinels.
 */
public final class RedisSentinelGroup implements AutoCloseable {

	public static final String MASTER_NAME = "mymaster";

	private final LocalRedisServer master;

	private final LocalRedisServer replica;

	private final List<LocalRedisServer> sentinels = new ArrayList<>();

	private final ConnectionFactories factories = new ConnectionFactories();

	private RedisSentinelGroup(LocalRedisServer master, LocalRedisServer replica) {
		this.master = master;
		this.replica = replica;
	}

	public static RedisSentinelGroup start() {
		LocalRedisServer master = LocalRedisServer.start("--repl-diskless-sync-delay", "0");
		LocalRedisServer replica = LocalRedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()),
				"--repl-diskless-sync-delay", "0");
		RedisSentinelGroup group = new RedisSentinelGroup(master, replica);
		try {
			for (int i = 0; i < 3; i++) {
				group.sentinels.add(LocalRedisServer.startSentinel(MASTER_NAME, master.port(), 2));
			}
			group.await("every Sentinel to know the replica and the other Sentinels", () -> group.sentinels.stream()
				.allMatch((sentinel) -> sentinelSays(sentinel, "SENTINEL", "replicas", MASTER_NAME)
					.contains(Integer.toString(replica.port()))
						&& sentinelSays(sentinel, "SENTINEL", "sentinels", MASTER_NAME).split("port").length >= 3));
			return group;
		}
		catch (RuntimeException ex) {
			group.close();
			throw ex;
		}
	}

	/**
	 * Return a command's reply, as text, from a Sentinel.
	 */
	private static String sentinelSays(LocalRedisServer sentinel, String... command) {
		RedisClient client = RedisClient.create(RedisURI.create(sentinel.host(), sentinel.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			io.lettuce.core.output.ArrayOutput<String, String> output = new io.lettuce.core.output.ArrayOutput<>(
					io.lettuce.core.codec.StringCodec.UTF8);
			io.lettuce.core.protocol.CommandArgs<String, String> args = new io.lettuce.core.protocol.CommandArgs<>(
					io.lettuce.core.codec.StringCodec.UTF8);
			for (int i = 1; i < command.length; i++) {
				args.add(command[i]);
			}
			return String.valueOf(
					connection.sync().dispatch(io.lettuce.core.protocol.CommandType.valueOf(command[0]), output, args));
		}
		catch (RuntimeException ex) {
			return "";
		}
		finally {
			client.shutdown();
		}
	}

	/**
	 * Return the port of the server the Sentinels name as master now.
	 */
	public int currentMasterPort() {
		String reply = sentinelSays(this.sentinels.get(0), "SENTINEL", "get-master-addr-by-name", MASTER_NAME);
		String digits = reply.replaceAll("^.*?,\\s*(\\d+)\\].*$", "$1");
		return digits.matches("\\d+") ? Integer.parseInt(digits) : -1;
	}

	/**
	 * Return the Sentinels as {@code host:port,host:port,...}.
	 */
	public String sentinelNodes() {
		return String.join(",",
				this.sentinels.stream().map((sentinel) -> sentinel.host() + ":" + sentinel.port()).toList());
	}

	public LocalRedisServer master() {
		return this.master;
	}

	public LocalRedisServer replica() {
		return this.replica;
	}

	/**
	 * Return a new, started connection factory that finds the master through the
	 * Sentinels, as {@code spring.data.redis.sentinel.*} configures one.
	 */
	public LettuceConnectionFactory connectionFactory() {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master(MASTER_NAME);
		for (LocalRedisServer sentinel : this.sentinels) {
			configuration.sentinel(sentinel.host(), sentinel.port());
		}
		return this.factories.start(new LettuceConnectionFactory(configuration));
	}

	public void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Sentinel group: gave up waiting for " + what);
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	@Override
	public void close() {
		this.factories.close();
		this.sentinels.forEach(LocalRedisServer::close);
		this.replica.close();
		this.master.close();
	}

}
