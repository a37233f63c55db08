package io.github.redislock.internal.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Records the sections threads believed they ran under a read or write lock (from the
 * return of the acquire to the call of the release, on the monotonic clock), and checks
 * them: no write section overlaps any other section, and read sections did overlap.
 */
final class SectionHistory {

	private final ConcurrentLinkedQueue<Section> sections = new ConcurrentLinkedQueue<>();

	/**
	 * Record a section; call {@link Open#close()} just before releasing.
	 */
	Open enter(boolean write) {
		long start = System.nanoTime();
		return () -> this.sections.add(new Section(write, start, System.nanoTime()));
	}

	void add(boolean write, long start, long end) {
		this.sections.add(new Section(write, start, end));
	}

	/**
	 * Return the write sections that overlapped another section; empty when the history
	 * is consistent with a read-write lock.
	 */
	List<String> writeOverlaps() {
		List<Section> all = new ArrayList<>(this.sections);
		List<String> violations = new ArrayList<>();
		for (int i = 0; i < all.size(); i++) {
			for (int j = i + 1; j < all.size(); j++) {
				Section a = all.get(i);
				Section b = all.get(j);
				if ((a.write() || b.write()) && a.overlaps(b)) {
					violations.add(a + " overlaps " + b);
				}
			}
		}
		return violations;
	}

	/**
	 * Return how many pairs of read sections overlapped.
	 */
	int readOverlaps() {
		List<Section> reads = this.sections.stream().filter((section) -> !section.write()).toList();
		int count = 0;
		for (int i = 0; i < reads.size(); i++) {
			for (int j = i + 1; j < reads.size(); j++) {
				if (reads.get(i).overlaps(reads.get(j))) {
					count++;
				}
			}
		}
		return count;
	}

	/**
	 * Return the most sections that were open at once (for N holders: a semaphore of N
	 * permits is consistent when this is at most N).
	 */
	int maxOverlap() {
		List<long[]> events = new ArrayList<>();
		for (Section section : this.sections) {
			events.add(new long[] { section.start(), 1 });
			events.add(new long[] { section.end(), -1 });
		}
		// At one instant, a section that ends does so before one that starts.
		events.sort((a, b) -> (a[0] != b[0]) ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
		int open = 0;
		int most = 0;
		for (long[] event : events) {
			open += (int) event[1];
			most = Math.max(most, open);
		}
		return most;
	}

	int size() {
		return this.sections.size();
	}

	interface Open extends AutoCloseable {

		@Override
		void close();

	}

	record Section(boolean write, long start, long end) {

		boolean overlaps(Section other) {
			return this.start < other.end && other.start < this.end;
		}

		@Override
		public String toString() {
			return (this.write ? "write" : "read") + "[" + this.start + ", " + this.end + "]";
		}

	}

}
