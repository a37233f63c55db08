package io.github.redislock.benchmarks;

/**
 * One lock implementation under test, with its own connections to Redis.
 */
interface Column extends AutoCloseable {

	/**
	 * Return the name printed in the tables.
	 */
	String title();

	/**
	 * Return a lock on {@code key} for the calling thread to use again and again.
	 */
	Locker locker(String key);

	/**
	 * Return the read side of a read-write lock on {@code key}, or {@code null} when the
	 * implementation has none.
	 */
	default Locker readLocker(String key) {
		return null;
	}

	@Override
	void close();

	/**
	 * Lock and unlock, as the implementation's users call them.
	 */
	interface Locker {

		void lock();

		void unlock();

		/**
		 * Return a locker that runs the given actions.
		 */
		static Locker of(Runnable lock, Runnable unlock) {
			return new Locker() {

				@Override
				public void lock() {
					lock.run();
				}

				@Override
				public void unlock() {
					unlock.run();
				}

			};
		}

	}

}
