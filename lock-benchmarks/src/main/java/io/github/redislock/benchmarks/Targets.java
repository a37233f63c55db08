package io.github.redislock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The performance targets a run checks (issue #34; the comparisons with Spring
 * Integration from issue #19), each with what this run measured and whether it met the
 * target; printed as a table ahead of the sections.
 */
final class Targets {

	private final List<List<String>> rows = new ArrayList<>();

	/**
	 * Record a target whose measured values (over rounds) must all lie at or below a
	 * bound; the median and the range are shown.
	 */
	void atMost(String target, List<Double> values, double bound, String unit) {
		check(target, values, bound, unit, true);
	}

	/**
	 * Record a target whose measured values (over rounds) must all lie at or above a
	 * bound.
	 */
	void atLeast(String target, List<Double> values, double bound, String unit) {
		check(target, values, bound, unit, false);
	}

	private void check(String target, List<Double> values, double bound, String unit, boolean atMost) {
		if (values.isEmpty()) {
			this.rows.add(List.of(target, "not measured", "n/a"));
			return;
		}
		double median = Stats.median(values);
		long met = values.stream().filter((value) -> atMost ? value <= bound : value >= bound).count();
		String verdict = (met == values.size()) ? "**met**" : (atMost ? median <= bound : median >= bound)
				? "met by the median, not in every round (" + met + " of " + values.size() + ")" : "**missed**";
		String measured = format(median, unit) + ((values.size() > 1)
				? " (" + format(Stats.min(values), unit) + "–" + format(Stats.max(values), unit) + ")" : "");
		this.rows.add(List.of(target, measured, verdict));
	}

	/**
	 * Record a target checked otherwise, with its measured text and verdict.
	 */
	void record(String target, String measured, boolean met) {
		this.rows.add(List.of(target, measured, met ? "**met**" : "**missed**"));
	}

	private static String format(double value, String unit) {
		if (unit.equals("×")) {
			return String.format(Locale.ROOT, "%.2f×", value);
		}
		if (unit.equals("%")) {
			return String.format(Locale.ROOT, "%.2f %%", value);
		}
		return Report.number(value, (Math.abs(value) >= 100) ? 0 : 1) + (unit.isEmpty() ? "" : " " + unit);
	}

	boolean isEmpty() {
		return this.rows.isEmpty();
	}

	void print(Report report) {
		report.heading("Targets of issue #34, as measured in this run");
		report.paragraph("Ratios are medians of the per-round ratios (range over rounds); a target is **met** when"
				+ " every round met it. Reasons for misses are discussed above the results.");
		report.table("target", List.of("measured", "verdict"), this.rows);
	}

}
