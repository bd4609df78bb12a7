package io.polycert.bench.replicated;

import java.util.Locale;
import java.util.Map;

/** A small SVG line chart of throughput over time, phase after phase, log scale: no plotting library needed. */
final class ThroughputPlot {
    private static final String[] COLORS = {"#999999", "#bbbbbb", "#777777", "#e69f00", "#0072b2", "#d55e00",
            "#009e73", "#cc79a7"};
    private static final String[] DASHES = {"4,3", "1,3", "8,3", "", "", "", "", ""};
    private static final int WIDTH = 900;
    private static final int HEIGHT = 420;
    private static final int LEFT = 70;
    private static final int RIGHT = 150;
    private static final int TOP = 30;
    private static final int BOTTOM = 50;

    private ThroughputPlot() {
    }

    static String svg(Map<String, Map<Integer, SwitchingBenchmark.PhaseResult>> byContender, int[] readSets,
            double phaseSeconds) {
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        int bins = 0;
        for (Map<Integer, SwitchingBenchmark.PhaseResult> phases : byContender.values()) {
            for (SwitchingBenchmark.PhaseResult p : phases.values()) {
                bins = Math.max(bins, p.perSecond().length);
                for (double v : p.perSecond()) {
                    if (v > 0) {
                        min = Math.min(min, v);
                        max = Math.max(max, v);
                    }
                }
            }
        }
        double lo = Math.floor(Math.log10(Math.max(1, min)));
        double hi = Math.ceil(Math.log10(Math.max(10, max)));
        if (hi <= lo) {
            hi = lo + 1;
        }
        double totalSeconds = readSets.length * phaseSeconds;
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT));
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">Bank, committed transactions"
                + " per second (log scale) as the read-set size switches</text>%n", LEFT));
        for (double e = lo; e <= hi; e++) {
            double y = TOP + plotH - (e - lo) / (hi - lo) * plotH;
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n", LEFT, y, LEFT + plotW, y,
                    LEFT - 6, y + 4, Math.pow(10, e)));
        }
        for (int k = 0; k < readSets.length; k++) {
            double x = LEFT + k * phaseSeconds / totalSeconds * plotW;
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>"
                    + "<text x=\"%.1f\" y=\"%d\">R=%,d</text>%n", x, TOP, x, TOP + plotH, x + 4, TOP + plotH + 16,
                    readSets[k]));
        }
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">seconds (each phase measured for every"
                + " contender in turn, stitched here)</text>%n", LEFT, HEIGHT - 10));
        int c = 0;
        for (Map.Entry<String, Map<Integer, SwitchingBenchmark.PhaseResult>> e : byContender.entrySet()) {
            StringBuilder points = new StringBuilder();
            for (int k = 0; k < readSets.length; k++) {
                SwitchingBenchmark.PhaseResult p = e.getValue().get(readSets[k]);
                double binSeconds = phaseSeconds / p.perSecond().length;
                for (int b = 0; b < p.perSecond().length; b++) {
                    double t = k * phaseSeconds + (b + 0.5) * binSeconds;
                    double v = Math.log10(Math.max(Math.pow(10, lo), p.perSecond()[b]));
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + t / totalSeconds * plotW,
                            TOP + plotH - (v - lo) / (hi - lo) * plotH));
                }
            }
            String color = COLORS[c % COLORS.length];
            String dash = DASHES[c % DASHES.length];
            s.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s"
                    + " points=\"%s\"/>%n", color, dash.isEmpty() ? "2" : "1.5",
                    dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"", points.toString().trim()));
            int ly = TOP + 14 + 18 * c;
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\""
                    + " stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">%s</text>%n", WIDTH - RIGHT + 10, ly,
                    WIDTH - RIGHT + 34, ly, color, dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"",
                    WIDTH - RIGHT + 40, ly + 4, e.getKey()));
            c++;
        }
        return s.append("</svg>\n").toString();
    }
}
