package io.github.redislock.integration;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.redislock.config.RedisLockTemplateBuilder;
import io.github.redislock.core.RedisLockTemplate;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * A leader candidate in a JVM of its own (run by
 * {@link io.github.redislock.test.ChildJvm}): Spring Integration's
 * {@link LockRegistryLeaderInitiator} over a {@link RedisLockRegistryAdapter}. Arguments:
 * Redis host, port, role, {@code watchdog} (renewed while held, lease time as below) or
 * {@code fixed} ({@code expireAfter}), the lease in ms, the heartbeat in ms. Reports on
 * stdout {@code READY}, {@code GRANTED token epochMillis} and
 * {@code REVOKED epochMillis}; {@code STOP} on stdin stops the initiator
 * ({@code STOPPED}).
 */
public final class LeaderProcess {

	private LeaderProcess() {
	}

	public static void main(String[] args) throws Exception {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		String role = args[2];
		boolean fixed = args[3].equals("fixed");
		Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
		long heartbeat = Long.parseLong(args[5]);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		factory.afterPropertiesSet();
		factory.start();
		RedisLockTemplate template = RedisLockTemplateBuilder.forConnectionFactory(factory).leaseTime(lease).build();
		RedisLockRegistryAdapter registry = fixed ? new RedisLockRegistryAdapter(template, lease)
				: new RedisLockRegistryAdapter(template);
		registry.setLeaseTime(lease);
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new Candidate() {

			@Override
			public String getRole() {
				return role;
			}

			@Override
			public String getId() {
				return "child-" + ProcessHandle.current().pid();
			}

			@Override
			public void onGranted(Context context) {
				say("GRANTED " + registry.fencingToken(role) + " " + System.currentTimeMillis());
			}

			@Override
			public void onRevoked(Context context) {
				say("REVOKED " + System.currentTimeMillis());
			}

		});
		initiator.setHeartBeatMillis(heartbeat);
		initiator.setApplicationEventPublisher((event) -> {
		});
		initiator.start();
		say("READY");
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String command;
		while ((command = commands.readLine()) != null) {
			if (command.equals("STOP")) {
				initiator.stop();
				say("STOPPED");
			}
		}
		initiator.stop();
		registry.destroy();
		((DisposableBean) template).destroy();
		factory.destroy();
	}

	private static synchronized void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
