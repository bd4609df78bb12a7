package io.polycert.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * PNG charts of benchmark results, one static method per figure of the PolyCert paper. Each writes one
 * {@value #WIDTH}x{@value #HEIGHT} PNG (creating the parent directory if needed) and throws
 * {@link IllegalArgumentException} if the results lack what the chart needs.
 *
 * <p>Charts render off-screen: unless {@code java.awt.headless} is already set, this class sets it to {@code true}
 * before any AWT use, so no display is needed and no window-system icon appears.
 *
 * <p>Where a chart plots one value per contender and parameter value, repeated runs of the same setting (same
 * benchmark and parameters) are averaged; runs that share the contender and the plotted parameter's value but differ
 * in another parameter or in the benchmark are rejected, since a single point could not stand for both.
 */
public final class Charts {
    // First of all static initialization, before any AWT class (Font, Color) is touched.
    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    /** Width of every chart, in pixels. */
    public static final int WIDTH = 800;
    /** Height of every chart, in pixels. */
    public static final int HEIGHT = 500;
    /** The read-set size parameter of Fig. 2 and Fig. 4. */
    public static final String READ_SET = "readSet";

    private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 18);
    private static final Font AXIS_TITLE_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 15);
    private static final Font TICK_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    private static final Font LEGEND_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 14);
    private static final Font ANNOTATION_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    private static final int MAX_TITLE = 80;
    /** Tick labels of a log axis: 10,000 rather than XChart's default 1E4. */
    private static final String LOG_PATTERN = "#,##0.###";

    /** Fixed colours (Okabe-Ito, colour-blind safe) so a contender looks the same in every chart. */
    private static final Map<String, Color> KNOWN_COLORS = Map.of(
            "NVC", new Color(0x0072B2),
            "BFC", new Color(0xE69F00),
            "VC", new Color(0xD55E00),
            "local", new Color(0x999999));
    private static final Color[] OTHER_COLORS = {new Color(0x009E73), new Color(0xCC79A7), new Color(0x56B4E9),
            new Color(0x000000), new Color(0x8C564B), new Color(0xBCBD22), new Color(0x7F7F7F), new Color(0x9467BD),
            new Color(0x17BECF), new Color(0xAD494A), new Color(0x393B79)};
    /** Legend names up to this long fit {@link #WIDTH}; each character more widens the chart by LEGEND_CHAR_WIDTH. */
    private static final int LEGEND_NAME_FITS = 16;
    private static final int LEGEND_CHAR_WIDTH = 9;

    private Charts() {
    }

    /**
     * Fig. 2: committed transactions per second (log scale) against the read-set size (parameter
     * {@value #READ_SET}, log scale), one line per contender. Results without that parameter are ignored.
     */
    public static void throughputByReadSet(List<RunResult> results, Path png) throws IOException {
        XYChart chart = byReadSet(results, "Throughput by read-set size", "committed transactions/s (log scale)",
                "committed/s", RunResult::committedPerSecond);
        save(chart, png);
    }

    /**
     * Fig. 4: 50th-percentile commit latency in microseconds (log scale) against the read-set size (parameter
     * {@value #READ_SET}, log scale), one line per contender. Results without that parameter are ignored.
     */
    public static void latencyByReadSet(List<RunResult> results, Path png) throws IOException {
        XYChart chart = byReadSet(results, "Median commit latency by read-set size",
                "p50 commit latency (µs, log scale)", "p50 latency", RunResult::p50Micros);
        save(chart, png);
    }

    /**
     * Fig. 5 and Fig. 8: grouped bars, one group per value of {@code groupParameter} (numeric values in ascending
     * order, others in first-seen order), one bar per contender, its committed transactions per second divided by
     * that of the group's best contender (so the best is 1.0). Results without the parameter are ignored; a group
     * where no contender committed anything has no bars.
     */
    public static void normalizedThroughput(List<RunResult> results, String groupParameter, Path png)
            throws IOException {
        Normalized data = normalize(results, groupParameter);
        List<String> groups = data.groups();

        CategoryChart chart = new CategoryChartBuilder().width(width(data.values().keySet())).height(HEIGHT)
                .title(title("Throughput relative to the best contender, by " + groupParameter, data.runs()))
                .xAxisTitle(groupParameter)
                .yAxisTitle("committed tx/s ÷ best contender's (best = 1)")
                .build();
        style(chart.getStyler());
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisMax(1.1);
        chart.getStyler().setYAxisDecimalPattern("0.0#");
        chart.getStyler().setAvailableSpaceFill(0.8);
        chart.getStyler().setOverlapped(false);
        boolean labels = groups.size() * data.values().size() <= 24;
        chart.getStyler().setLabelsVisible(labels);
        if (labels) {
            chart.getStyler().setLabelsFont(ANNOTATION_FONT);
            chart.getStyler().setLabelsRotation(0);
            chart.getStyler().setLabelsPosition(1.0);
            chart.getStyler().setLabelsFontColorAutomaticEnabled(false);
            chart.getStyler().setLabelsFontColor(Color.BLACK);
        }
        if (groups.size() > 12) {
            chart.getStyler().setXAxisLabelRotation(45);
        }

        Map<String, Color> colors = colors(data.values().keySet());
        for (Map.Entry<String, List<Double>> e : data.values().entrySet()) {
            CategorySeries s = chart.addSeries(e.getKey(), groups, e.getValue());
            s.setFillColor(colors.get(e.getKey()));
            s.setLineColor(colors.get(e.getKey()));
        }
        save(chart, png);
    }

    /**
     * Fig. 7: committed transactions per second over time, one line per contender, each the timelines of that
     * contender's runs laid end to end in list order (a run starts where the previous one of the same contender
     * ended: after its {@code seconds}, or its last sample if later). Where the first contender's consecutive runs
     * differ in their parameters, the boundaries are marked and each phase is labelled with what changed. The y
     * axis is logarithmic when every sample is positive and they span two decades or more.
     */
    public static void throughputOverTime(List<RunResult> results, Path png) throws IOException {
        requireResults(results);
        Map<String, List<RunResult>> byContender = new LinkedHashMap<>();
        for (RunResult r : results) {
            byContender.computeIfAbsent(r.contender(), k -> new ArrayList<>()).add(r);
        }
        if (results.stream().allMatch(r -> r.timeline().isEmpty())) {
            throw new IllegalArgumentException("no run has a per-second timeline, so there is nothing to plot over"
                    + " time");
        }

        Map<String, double[][]> series = timelines(byContender);
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        for (double[][] xy : series.values()) {
            for (double v : xy[1]) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        boolean log = min > 0 && max / min >= 100;

        XYChart chart = new XYChartBuilder().width(width(series.keySet())).height(HEIGHT)
                .title(title("Throughput over time", results))
                .xAxisTitle("time (s)")
                .yAxisTitle(log ? "committed transactions/s (log scale)" : "committed transactions/s")
                .build();
        style(chart.getStyler());
        chart.getStyler().setYAxisLogarithmic(log);
        if (log) {
            chart.getStyler().setYAxisDecimalPattern(LOG_PATTERN);
        }
        chart.getStyler().setXAxisMin(0.0);
        double top = max <= 0 ? 1.0 : log ? max * 4 : max * 1.15;
        chart.getStyler().setYAxisMax(top);
        if (!log) {
            chart.getStyler().setYAxisMin(0.0);
        }
        Map<String, Color> colors = colors(series.keySet());
        for (Map.Entry<String, double[][]> e : series.entrySet()) {
            XYSeries s = chart.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]);
            s.setMarker(SeriesMarkers.NONE);
            s.setLineColor(colors.get(e.getKey()));
            s.setLineStyle(new BasicStroke(2f));
        }
        markPhases(chart, byContender.values().iterator().next(), log ? max * 1.8 : max * 1.07);
        save(chart, png);
    }

    /**
     * Commits per second by the protocol that certified them (local: read-only or nothing written; NVC, BFC, VC) over one run, as stacked
     * areas: the top edge is the run's total committed transactions per second.
     */
    public static void protocolMixOverTime(RunResult result, Path png) throws IOException {
        Objects.requireNonNull(result, "result");
        List<RunResult.Second> timeline = result.timeline();
        if (timeline.isEmpty()) {
            throw new IllegalArgumentException("run " + describe(result) + " has no per-second timeline");
        }
        int n = timeline.size();
        double[] x = new double[n];
        double[][] stacked = new double[4][n];
        for (int i = 0; i < n; i++) {
            RunResult.Second s = timeline.get(i);
            x[i] = s.atSeconds();
            stacked[0][i] = s.readOnly();
            stacked[1][i] = stacked[0][i] + s.nvc();
            stacked[2][i] = stacked[1][i] + s.bfc();
            stacked[3][i] = stacked[2][i] + s.vc();
        }
        String[] names = {"local", "NVC", "BFC", "VC"};

        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(title("Commits by protocol over time: " + result.contender(), List.of(result)))
                .xAxisTitle("time (s)")
                .yAxisTitle("commits/s, stacked by protocol")
                .build();
        style(chart.getStyler());
        chart.getStyler().setYAxisMin(0.0);
        double max = 0;
        for (double v : stacked[3]) {
            max = Math.max(max, v);
        }
        chart.getStyler().setYAxisMax(max > 0 ? max * 1.1 : 1.0);
        // Each layer is the polygon between its top edge (left to right) and the layer below's (right to left).
        for (int k = 0; k < 4; k++) {
            double[] px = new double[2 * n];
            double[] py = new double[2 * n];
            for (int i = 0; i < n; i++) {
                px[i] = x[i];
                py[i] = stacked[k][i];
                px[2 * n - 1 - i] = x[i];
                py[2 * n - 1 - i] = k == 0 ? 0 : stacked[k - 1][i];
            }
            XYSeries s = chart.addSeries(names[k], px, py);
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.PolygonArea);
            s.setMarker(SeriesMarkers.NONE);
            s.setLineStyle(SeriesLines.NONE);
            s.setFillColor(KNOWN_COLORS.get(names[k]));
            s.setLineColor(KNOWN_COLORS.get(names[k]));
        }
        save(chart, png);
    }

    // ---------------------------------------------------------------------------------------------------------------

    /**
     * What {@link #normalizedThroughput} draws: the groups in axis order, and per contender (first-seen order) one
     * value per group, {@code null} where the contender has no run in that group or nobody committed anything.
     */
    record Normalized(List<RunResult> runs, List<String> groups, Map<String, List<Double>> values) {
    }

    static Normalized normalize(List<RunResult> results, String groupParameter) {
        Objects.requireNonNull(groupParameter, "groupParameter");
        List<RunResult> runs = withParameter(results, groupParameter);
        List<String> groups = orderedValues(runs, groupParameter);
        Map<String, Map<String, Double>> byContender = meanByContenderAndValue(runs, groupParameter,
                RunResult::committedPerSecond);
        Map<String, Double> best = new HashMap<>();
        for (Map<String, Double> values : byContender.values()) {
            values.forEach((group, v) -> best.merge(group, v, Math::max));
        }
        if (best.values().stream().noneMatch(v -> v > 0)) {
            throw new IllegalArgumentException("nothing to normalize: no contender committed any transaction in any "
                    + groupParameter + " group");
        }
        Map<String, List<Double>> values = new LinkedHashMap<>();
        byContender.forEach((contender, byGroup) -> {
            List<Double> y = new ArrayList<>();
            for (String group : groups) {
                Double v = byGroup.get(group);
                double b = best.getOrDefault(group, 0.0);
                y.add(v == null || !(b > 0) || !Double.isFinite(v) ? null : v / b);
            }
            values.put(contender, y);
        });
        return new Normalized(runs, groups, values);
    }

    /**
     * Per contender, its runs' timelines laid end to end: {x = seconds since the first run began, y = commits in that
     * second}. A run begins where the previous one ended (after its {@code seconds}, or its last sample if later).
     */
    static Map<String, double[][]> timelines(Map<String, List<RunResult>> byContender) {
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (Map.Entry<String, List<RunResult>> e : byContender.entrySet()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            double offset = 0;
            for (RunResult r : e.getValue()) {
                for (RunResult.Second s : r.timeline()) {
                    xs.add(offset + s.atSeconds());
                    ys.add((double) s.total());
                }
                offset += duration(r);
            }
            if (!xs.isEmpty()) {
                series.put(e.getKey(), new double[][] {unbox(xs), unbox(ys)});
            }
        }
        return series;
    }

    private static double duration(RunResult r) {
        double last = r.timeline().isEmpty() ? 0 : r.timeline().get(r.timeline().size() - 1).atSeconds();
        return Math.max(r.seconds(), last);
    }

    private static XYChart byReadSet(List<RunResult> results, String what, String yTitle, String metric,
            ToDoubleFunction<RunResult> value) {
        List<RunResult> runs = withParameter(results, READ_SET);
        for (RunResult r : runs) {
            number(r, READ_SET);
        }
        Map<String, Map<String, Double>> byContender = meanByContenderAndValue(runs, READ_SET, value);

        XYChart chart = new XYChartBuilder().width(width(byContender.keySet())).height(HEIGHT)
                .title(title(what, runs))
                .xAxisTitle("read-set size (items read per transaction, log scale)")
                .yAxisTitle(yTitle)
                .build();
        style(chart.getStyler());
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setXAxisDecimalPattern(LOG_PATTERN);
        chart.getStyler().setYAxisDecimalPattern(LOG_PATTERN);
        chart.getStyler().setMarkerSize(9);
        Map<String, Color> colors = colors(byContender.keySet());
        int added = 0;
        for (Map.Entry<String, Map<String, Double>> e : byContender.entrySet()) {
            List<double[]> points = new ArrayList<>();
            e.getValue().forEach((readSet, v) -> {
                double rs = Double.parseDouble(readSet.trim());
                if (rs > 0 && v > 0 && Double.isFinite(v)) {
                    points.add(new double[] {rs, v});
                }
            });
            if (points.isEmpty()) {
                continue; // a log axis cannot show zero
            }
            points.sort(Comparator.comparingDouble(p -> p[0]));
            double[] xs = points.stream().mapToDouble(p -> p[0]).toArray();
            double[] ys = points.stream().mapToDouble(p -> p[1]).toArray();
            XYSeries s = chart.addSeries(e.getKey(), xs, ys);
            s.setLineColor(colors.get(e.getKey()));
            s.setMarkerColor(colors.get(e.getKey()));
            s.setLineStyle(new BasicStroke(2f));
            added++;
        }
        if (added == 0) {
            throw new IllegalArgumentException("nothing to plot on a log scale: every " + metric
                    + " is zero or not a number, or every " + READ_SET + " is not positive");
        }
        return chart;
    }

    /** The runs that have the parameter; at least one, else an exception naming the parameter and what there is. */
    private static List<RunResult> withParameter(List<RunResult> results, String parameter) {
        requireResults(results);
        List<RunResult> runs = new ArrayList<>();
        for (RunResult r : results) {
            if (r.parameter(parameter) != null) {
                runs.add(r);
            }
        }
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no result has the parameter '" + parameter + "' (parameters present: "
                    + ReportWriter.parameterNames(results) + ")");
        }
        return runs;
    }

    private static void requireResults(List<RunResult> results) {
        Objects.requireNonNull(results, "results");
        if (results.isEmpty()) {
            throw new IllegalArgumentException("no results to plot");
        }
    }

    private static double number(RunResult r, String parameter) {
        String v = r.parameter(parameter);
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter '" + parameter + "' of run " + describe(r) + " is '" + v
                    + "', not a number", e);
        }
    }

    /**
     * contender → (parameter value → mean of the metric over the repeated runs of that setting), contenders and
     * values in first-seen order.
     */
    private static Map<String, Map<String, Double>> meanByContenderAndValue(List<RunResult> runs, String parameter,
            ToDoubleFunction<RunResult> metric) {
        Map<String, Map<String, List<RunResult>>> grouped = new LinkedHashMap<>();
        for (RunResult r : runs) {
            List<RunResult> same = grouped.computeIfAbsent(r.contender(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(r.parameter(parameter), k -> new ArrayList<>());
            if (!same.isEmpty()) {
                RunResult first = same.get(0);
                if (!Objects.equals(first.benchmark(), r.benchmark())
                        || !first.parameters().equals(r.parameters())) {
                    throw new IllegalArgumentException("runs of contender " + r.contender() + " at " + parameter + "="
                            + r.parameter(parameter) + " differ in another setting (" + describe(first) + " vs "
                            + describe(r) + "); pass the results of one setting only");
                }
            }
            same.add(r);
        }
        Map<String, Map<String, Double>> means = new LinkedHashMap<>();
        grouped.forEach((contender, byValue) -> {
            Map<String, Double> m = new LinkedHashMap<>();
            byValue.forEach((v, list) -> m.put(v, list.stream().mapToDouble(metric).average().orElse(Double.NaN)));
            means.put(contender, m);
        });
        return means;
    }

    /** The parameter's distinct values: ascending if all are numbers, else in first-seen order. */
    private static List<String> orderedValues(List<RunResult> runs, String parameter) {
        Set<String> values = new LinkedHashSet<>();
        for (RunResult r : runs) {
            values.add(r.parameter(parameter));
        }
        List<String> ordered = new ArrayList<>(values);
        if (ordered.stream().allMatch(Charts::isNumber)) {
            ordered.sort(Comparator.comparingDouble(v -> Double.parseDouble(v.trim())));
        }
        return ordered;
    }

    private static boolean isNumber(String s) {
        try {
            Double.parseDouble(s.trim());
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Vertical lines where the runs' parameters change, and a label of what changed over each phase. */
    private static void markPhases(XYChart chart, List<RunResult> runs, double labelY) {
        Set<String> varying = new LinkedHashSet<>();
        for (int i = 1; i < runs.size(); i++) {
            for (String p : ReportWriter.parameterNames(runs)) {
                if (!Objects.equals(runs.get(i).parameter(p), runs.get(0).parameter(p))) {
                    varying.add(p);
                }
            }
        }
        if (varying.isEmpty()) {
            return;
        }
        chart.getStyler().setAnnotationLineColor(Color.GRAY);
        chart.getStyler().setAnnotationLineStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
                10f, new float[] {4f, 4f}, 0f));
        chart.getStyler().setAnnotationTextFont(ANNOTATION_FONT);
        chart.getStyler().setAnnotationTextFontColor(Color.DARK_GRAY);
        double start = 0;
        for (int i = 0; i < runs.size(); i++) {
            RunResult r = runs.get(i);
            double end = start + duration(r);
            if (i > 0) {
                chart.addAnnotation(new AnnotationLine(start, true, false));
            }
            StringBuilder label = new StringBuilder();
            for (String p : varying) {
                label.append(label.length() == 0 ? "" : " ").append(p).append('=').append(r.parameter(p));
            }
            if (runs.size() <= 12 && end > start) {
                chart.addAnnotation(new AnnotationText(label.toString(), (start + end) / 2, labelY, false));
            }
            start = end;
        }
    }

    private static void style(AxesChartStyler styler) {
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotBorderColor(Color.GRAY);
        styler.setPlotGridLinesColor(new Color(0xDDDDDD));
        styler.setChartTitleFont(TITLE_FONT);
        styler.setChartTitleBoxVisible(false);
        styler.setAxisTitleFont(AXIS_TITLE_FONT);
        styler.setAxisTickLabelsFont(TICK_FONT);
        styler.setLegendFont(LEGEND_FONT);
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        styler.setLegendBorderColor(Color.WHITE);
        styler.setChartPadding(12);
        styler.setAntiAlias(true);
        styler.setLocale(java.util.Locale.ROOT);
    }

    /**
     * {@link #WIDTH}, widened for legend names longer than {@value #LEGEND_NAME_FITS} characters: the legend takes
     * its width from the plot, and the title, centred over the plot, would be cut off.
     */
    static int width(Set<String> legend) {
        int longest = 0;
        for (String name : legend) {
            longest = Math.max(longest, name == null ? 0 : name.length());
        }
        return WIDTH + LEGEND_CHAR_WIDTH * Math.max(0, longest - LEGEND_NAME_FITS);
    }

    /** A colour per contender: the fixed one if it has one, else the next unused of the others. */
    static Map<String, Color> colors(Set<String> contenders) {
        Map<String, Color> colors = new HashMap<>();
        int next = 0;
        for (String c : contenders) {
            Color known = c == null ? null : KNOWN_COLORS.get(c);
            colors.put(c, known != null ? known : OTHER_COLORS[next++ % OTHER_COLORS.length]);
        }
        return colors;
    }

    /** The title, followed by the benchmark when all runs are of one, shortened to fit. */
    private static String title(String what, List<RunResult> runs) {
        Set<String> benchmarks = new LinkedHashSet<>();
        for (RunResult r : runs) {
            benchmarks.add(r.benchmark());
        }
        String t = benchmarks.size() == 1 && benchmarks.iterator().next() != null
                ? what + " (" + benchmarks.iterator().next() + ")" : what;
        return t.length() <= MAX_TITLE ? t : t.substring(0, MAX_TITLE - 1) + "…";
    }

    private static String describe(RunResult r) {
        return r.benchmark() + "/" + r.contender() + " " + r.parameters();
    }

    private static double[] unbox(List<Double> values) {
        double[] a = new double[values.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = values.get(i);
        }
        return a;
    }

    private static void save(Chart<?, ?> chart, Path png) throws IOException {
        Objects.requireNonNull(png, "png");
        if (chart.getSeriesMap().size() > 6) {
            // A row of more than six names runs off the bottom edge: stack them to the right instead.
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        }
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(png)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
