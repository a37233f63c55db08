package io.github.redislock.internal.queue;

import io.github.redislock.support.Printable;

/**
 * The largest payload a queue accepts at enqueue
 * ({@code redislock.queue.max-payload-size}), counted in UTF-8 bytes as Redis stores it:
 * an operator's page, the dead letters and a worker's memory then hold tasks of a known
 * size.
 *
 * @param maxBytes the largest payload accepted, in bytes
 * @since 0.1.0
 */
public record PayloadLimit(long maxBytes) {

	/** The default: 1 MB. */
	public static final PayloadLimit DEFAULT = new PayloadLimit(1024 * 1024);

	/**
	 * Refuse a payload larger than the limit.
	 * @param queue the queue
	 * @param id the task id
	 * @param payload the payload as stored
	 * @throws IllegalArgumentException naming the queue, the task, the size and the limit
	 */
	void check(String queue, String id, String payload) {
		// Most payloads are far below the limit in any encoding (at most 3 bytes a char).
		if ((long) payload.length() * 3 <= this.maxBytes) {
			return;
		}
		long bytes = utf8Length(payload);
		if (bytes > this.maxBytes) {
			throw new IllegalArgumentException("The payload of task '" + shortened(id) + "' for queue '"
					+ shortened(queue) + "' is " + bytes + " bytes, larger than redislock.queue.max-payload-size ("
					+ this.maxBytes + " bytes); nothing was enqueued. Pass a reference to the data (a row id, a"
					+ " file name) rather than the data, or raise the limit.");
		}
	}

	/** The longest task id, in UTF-8 bytes: operators' pages list ids whole. */
	static final int MAX_ID_BYTES = 4096;

	/**
	 * Refuse a task id longer than {@value #MAX_ID_BYTES} bytes.
	 * @param queue the queue
	 * @param id the task id
	 * @throws IllegalArgumentException naming the queue and the size
	 */
	static void checkId(String queue, String id) {
		if ((long) id.length() * 3 <= MAX_ID_BYTES) {
			return;
		}
		long bytes = utf8Length(id);
		if (bytes > MAX_ID_BYTES) {
			throw new IllegalArgumentException("A task id for queue '" + shortened(queue) + "' is " + bytes
					+ " bytes, longer than " + MAX_ID_BYTES + " (it starts '" + shortened(id)
					+ "'); nothing was enqueued. Use a shorter id (a digest of the long one, say).");
		}
	}

	static long utf8Length(String text) {
		long bytes = 0;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c < 0x80) {
				bytes += 1;
			}
			else if (c < 0x800) {
				bytes += 2;
			}
			else if (Character.isHighSurrogate(c) && i + 1 < text.length()
					&& Character.isLowSurrogate(text.charAt(i + 1))) {
				bytes += 4;
				i++;
			}
			else {
				bytes += 3;
			}
		}
		return bytes;
	}

	private static String shortened(String text) {
		return Printable.of((text.length() > 80) ? text.substring(0, 80) + "..." : text);
	}

}
