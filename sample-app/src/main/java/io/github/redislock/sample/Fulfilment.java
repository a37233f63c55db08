package io.github.redislock.sample;

import io.github.redislock.annotation.QueuedTask;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Fulfils orders later, on whichever instance's worker takes the task: calling
 * {@link #fulfil} only enqueues it. Delivery is at-least-once, so the recording is keyed
 * by the order id.
 */
@Service
public class Fulfilment {

	private final JdbcClient jdbc;

	public Fulfilment(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@QueuedTask(queue = "fulfilment", id = "#orderId")
	public void fulfil(String orderId, String item, String buyer) {
		this.jdbc.sql("insert into fulfilments (order_id, item, buyer) values (?, ?, ?)")
			.params(orderId, item, buyer)
			.update();
	}

	public long fulfilled(String item) {
		return this.jdbc.sql("select count(*) from fulfilments where item = ?").param(item).query(Long.class).single();
	}

	public long duplicates(String item) {
		return this.jdbc.sql("select count(*) - count(distinct order_id) from fulfilments where item = ?")
			.param(item)
			.query(Long.class)
			.single();
	}

}
