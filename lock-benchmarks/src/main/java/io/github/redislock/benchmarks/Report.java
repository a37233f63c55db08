package io.github.redislock.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Collects per-round values and prints them as Markdown tables: median over rounds with
 * the min–max range, and the median ratio to the baseline of the same round.
 */
final class Report {

	private final StringBuilder text = new StringBuilder();

	/**
	 * Values of one cell over the rounds, with their ratios to the baseline's.
	 */
	static final class Series {

		final List<Double> values = new ArrayList<>();

		final List<Double> ratios = new ArrayList<>();

		void add(double value, double baseline) {
			this.values.add(value);
			if (!Double.isNaN(baseline) && baseline != 0) {
				this.ratios.add(value / baseline);
			}
		}

	}

	/**
	 * A table of series: rows (columns under test) by headings (e.g. thread counts).
	 */
	static final class Grid {

		final Map<String, Map<String, Series>> rows = new LinkedHashMap<>();

		Series at(String row, String heading) {
			return this.rows.computeIfAbsent(row, (key) -> new LinkedHashMap<>())
				.computeIfAbsent(heading, (key) -> new Series());
		}

	}

	void heading(String heading) {
		this.text.append("\n### ").append(heading).append("\n\n");
	}

	void paragraph(String paragraph) {
		this.text.append(paragraph).append("\n\n");
	}

	void table(String firstHeading, List<String> headings, List<List<String>> rows) {
		this.text.append("| ").append(firstHeading);
		headings.forEach((heading) -> this.text.append(" | ").append(heading));
		this.text.append(" |\n|---");
		headings.forEach((heading) -> this.text.append("|---:"));
		this.text.append("|\n");
		for (List<String> row : rows) {
			this.text.append("| ").append(String.join(" | ", row)).append(" |\n");
		}
		this.text.append('\n');
	}

	/**
	 * Print a grid, with values rounded to {@code decimals} and, when asked, the ratios.
	 */
	void grid(String firstHeading, Grid grid, boolean ratios, int decimals) {
		List<String> headings = new ArrayList<>();
		grid.rows.values().forEach((cells) -> cells.keySet().forEach((heading) -> {
			if (!headings.contains(heading)) {
				headings.add(heading);
			}
		}));
		List<List<String>> rows = new ArrayList<>();
		grid.rows.forEach((row, cells) -> {
			List<String> line = new ArrayList<>();
			line.add(row);
			for (String heading : headings) {
				Series series = cells.get(heading);
				line.add((series != null) ? cell(series, ratios, decimals) : "n/a");
			}
			rows.add(line);
		});
		table(firstHeading, headings, rows);
	}

	static String cell(Series series, boolean ratios, int decimals) {
		if (series.values.isEmpty()) {
			return "n/a";
		}
		String cell = number(Stats.median(series.values), decimals);
		if (series.values.size() > 1) {
			cell += " (" + number(Stats.min(series.values), decimals) + "–" + number(Stats.max(series.values), decimals)
					+ ")";
		}
		if (ratios && !series.ratios.isEmpty()) {
			cell += " **" + String.format(Locale.ROOT, "%.2f", Stats.median(series.ratios)) + "×**";
		}
		return cell;
	}

	static String number(double value, int decimals) {
		if (decimals == 0) {
			return String.format(Locale.ROOT, "%,d", Math.round(value));
		}
		return String.format(Locale.ROOT, "%,." + decimals + "f", value);
	}

	@Override
	public String toString() {
		return this.text.toString();
	}

}
