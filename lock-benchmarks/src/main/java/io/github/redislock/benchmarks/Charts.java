package io.github.redislock.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the benchmark's curves as PNG files (XChart) and remembers them, so the report
 * can embed them. Charts are drawn only when the run rewrites {@code docs/BENCHMARKS.md}
 * or {@code --charts} names a folder.
 */
final class Charts {

	private static final int WIDTH = 900;

	private static final int HEIGHT = 420;

	private static final Color[] COLORS = { new Color(0xC0392B), new Color(0xE67E22), new Color(0x2471A3),
			new Color(0x7D3C98), new Color(0x17A589), new Color(0x5D6D7E), new Color(0xB7950B) };

	private final Path folder;

	private final Map<String, String> written = new LinkedHashMap<>();

	Charts(Path folder) {
		this.folder = folder;
	}

	/**
	 * One line of a chart: x values and y values.
	 */
	record Line(String name, List<Double> x, List<Double> y) {
	}

	/**
	 * Draw lines over numeric x values.
	 * @param file file name in the charts folder
	 * @param logX whether the x axis is logarithmic
	 * @param logY whether the y axis is logarithmic
	 * @return the file's path relative to the report
	 */
	String lines(String file, String title, String xTitle, String yTitle, List<Line> lines, boolean logX, boolean logY)
			throws IOException {
		XYChart chart = new XYChartBuilder().width(WIDTH)
			.height(HEIGHT)
			.title(title)
			.xAxisTitle(xTitle)
			.yAxisTitle(yTitle)
			.build();
		style(chart.getStyler());
		chart.getStyler().setXAxisLogarithmic(logX);
		chart.getStyler().setYAxisLogarithmic(logY);
		// One entry a line, beside the plot: a row of long column names does not fit.
		chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
		chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
		int i = 0;
		for (Line line : lines) {
			if (line.x().isEmpty()) {
				continue;
			}
			XYSeries series = chart.addSeries(line.name(), line.x(), line.y());
			series.setMarker(SeriesMarkers.CIRCLE);
			series.setLineColor(COLORS[i % COLORS.length]);
			series.setMarkerColor(COLORS[i % COLORS.length]);
			series.setLineStyle(new BasicStroke(line.name().startsWith("raw") ? 1.5f : 2.5f));
			i++;
		}
		return save(chart, file);
	}

	/**
	 * Draw grouped bars: one group per category, one bar per series.
	 */
	String bars(String file, String title, String yTitle, List<String> categories, Map<String, List<Double>> series,
			boolean logY) throws IOException {
		CategoryChart chart = new CategoryChartBuilder().width(WIDTH)
			.height(HEIGHT)
			.title(title)
			.yAxisTitle(yTitle)
			.build();
		style(chart.getStyler());
		chart.getStyler().setYAxisLogarithmic(logY);
		if (logY) {
			// A bar starts at the axis' minimum, which xchart takes as 0 unless told:
			// on a log axis that is refused. The power of ten below the smallest value.
			double smallest = series.values()
				.stream()
				.flatMap(List::stream)
				.mapToDouble(Double::doubleValue)
				.filter((value) -> value > 0)
				.min()
				.orElse(1);
			chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(smallest))));
		}
		// One entry a line, beside the plot: a row of long column names does not fit.
		chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
		chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
		int i = 0;
		for (Map.Entry<String, List<Double>> entry : series.entrySet()) {
			chart.addSeries(entry.getKey(), new ArrayList<>(categories), entry.getValue())
				.setFillColor(COLORS[i++ % COLORS.length]);
		}
		return save(chart, file);
	}

	private static void style(AxesChartStyler styler) {
		styler.setChartBackgroundColor(Color.WHITE);
		styler.setPlotBackgroundColor(Color.WHITE);
		styler.setPlotGridLinesColor(new Color(0xDDDDDD));
		styler.setAntiAlias(true);
	}

	private String save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, String file) throws IOException {
		Files.createDirectories(this.folder);
		Path path = this.folder.resolve(file);
		BitmapEncoder.saveBitmap(chart, path.toString(), BitmapEncoder.BitmapFormat.PNG);
		String relative = "images/benchmarks/" + file;
		this.written.put(file, relative);
		return relative;
	}

}
