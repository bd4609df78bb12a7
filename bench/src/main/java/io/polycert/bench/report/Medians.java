package io.polycert.bench.report;

import java.util.Arrays;

/** The median the benchmarks report over their rounds (robust to the odd round a noisy machine spoils). */
public final class Medians {
    private Medians() {
    }

    /** The middle value, or the mean of the two middle values for an even count; the input is not changed. */
    public static double of(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
