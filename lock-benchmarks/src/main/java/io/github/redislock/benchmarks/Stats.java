package io.github.redislock.benchmarks;

import java.util.Arrays;
import java.util.List;

/**
 * Medians, ranges and percentiles.
 */
final class Stats {

	private Stats() {
	}

	static double median(List<Double> values) {
		double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
		int n = sorted.length;
		return (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	}

	static double min(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
	}

	static double max(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
	}

	/**
	 * Return the {@code p}-th percentile (0 < p <= 100), nearest rank.
	 */
	static double percentile(long[] values, double p) {
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		int rank = (int) Math.ceil(p / 100.0 * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
	}

}
