package io.github.redislock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * Sends a signal to one process, by its id.
 */
final class Signals {

	private Signals() {
	}

	/**
	 * Kill a process at once (SIGKILL) and wait for it to be gone.
	 */
	static void killNow(Process process) {
		process.destroyForcibly();
		try {
			process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static void send(long pid, String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
