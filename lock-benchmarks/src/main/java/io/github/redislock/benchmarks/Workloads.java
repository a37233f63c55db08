package io.github.redislock.benchmarks;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * The workloads that run in both processes of a two-process measurement.
 */
final class Workloads {

	private Workloads() {
	}

	static long nowMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
	}

	/**
	 * Contended lock and unlock on one key around a non-atomic read-modify-write of a
	 * counter in Redis (GET, then SET): lost updates would show as a counter below the
	 * operations done.
	 */
	static Measure.Run contendAcrossProcesses(Column column, int threads, long warmUp, long measure, String key,
			String counterKey, RedisCommands<String, String> redis) {
		return Measure.run(threads, warmUp, measure, (t) -> {
			Column.Locker locker = column.locker(key);
			return () -> {
				locker.lock();
				try {
					String value = redis.get(counterKey);
					redis.set(counterKey, Long.toString(((value != null) ? Long.parseLong(value) : 0) + 1));
				}
				finally {
					locker.unlock();
				}
			};
		});
	}

	/**
	 * One side of the hand-off ping-pong between two processes. In round {@code i} the
	 * holder waits until the other side says it is about to lock (key {@code turn}),
	 * gives it 2 ms to block, and unlocks; the other side's lock returns, and it says so
	 * before the next round begins, so the releaser cannot take the lock straight back.
	 * Each side records when its unlock returned (releases) and when its lock returned
	 * (acquisitions), per round, in wall-clock microseconds.
	 * @param first whether this side holds the lock in round 0 (it must hold it already)
	 * @return per round: the release time when this side released in that round, else the
	 * acquisition time
	 */
	static long[] handOff(Column.Locker locker, boolean first, int rounds, String turn,
			RedisCommands<String, String> redis) {
		String me = first ? "A" : "B";
		String other = first ? "B" : "A";
		long[] times = new long[rounds];
		for (int i = 0; i < rounds; i++) {
			boolean holder = (i % 2 == 0) == first;
			if (holder) {
				awaitTurn(redis, turn, other + ":" + i);
				LockSupport.parkNanos(2_000_000);
				locker.unlock();
				times[i] = nowMicros();
				// No barging: the next round starts once the other side holds the lock.
				awaitTurn(redis, turn, other + ":" + i + ":held");
			}
			else {
				redis.set(turn, me + ":" + i);
				locker.lock();
				times[i] = nowMicros();
				redis.set(turn, me + ":" + i + ":held");
			}
		}
		boolean holdsAtEnd = (rounds % 2 == 0) == first;
		if (holdsAtEnd) {
			locker.unlock();
		}
		return times;
	}

	private static void awaitTurn(RedisCommands<String, String> redis, String turn, String expected) {
		while (!expected.equals(redis.get(turn))) {
			LockSupport.parkNanos(50_000);
		}
	}

	static List<String> format(long[] values) {
		List<String> text = new ArrayList<>(values.length);
		for (long value : values) {
			text.add(Long.toString(value));
		}
		return text;
	}

}
