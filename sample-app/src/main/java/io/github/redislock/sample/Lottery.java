package io.github.redislock.sample;

import java.time.LocalDate;
import java.util.List;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

/**
 * The noon lottery: every instance runs the draw, one wins the lock and draws ten winners
 * among the eligible users; the others skip. A second draw for a day that has winners
 * draws nothing.
 * <p>
 * The scheduled job has the recommended form for "one instance per tick": wait 0, skip
 * when another instance has the tick, and hold the lock at least 5 minutes after it was
 * taken (timed by Redis), so an instance whose clock runs up to 5 minutes behind finds
 * the tick taken when its own noon comes.
 */
@Service
public class Lottery {

	private final JdbcClient jdbc;

	public Lottery(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@Scheduled(cron = "${sample.lottery.cron:0 0 12 * * *}")
	@DistributedLock(name = "lottery.noon", waitTime = "0", onFailure = OnLockFailure.SKIP,
			holdAtLeast = "${sample.lottery.hold-at-least:5m}")
	public void noonDraw() {
		draw(LocalDate.now());
	}

	/**
	 * Draw the day's winners.
	 * @return the winners drawn now; empty when another instance holds the draw or the
	 * day was drawn already
	 */
	@DistributedLock(name = "lottery", key = "#day", waitTime = "0", onFailure = OnLockFailure.SKIP)
	public List<String> draw(LocalDate day) {
		if (!winners(day).isEmpty()) {
			return List.of();
		}
		List<String> picked = this.jdbc.sql("select name from users order by rand() limit 10")
			.query(String.class)
			.list();
		for (String user : picked) {
			this.jdbc.sql("insert into lottery_winners (draw_day, user_name) values (?, ?)").params(day, user).update();
		}
		return picked;
	}

	public List<String> winners(LocalDate day) {
		return this.jdbc.sql("select user_name from lottery_winners where draw_day = ? order by user_name")
			.param(day)
			.query(String.class)
			.list();
	}

}
