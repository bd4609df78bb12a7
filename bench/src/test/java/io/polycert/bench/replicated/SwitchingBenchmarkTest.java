package io.polycert.bench.replicated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SwitchingBenchmarkTest {

    @Test
    void turnsInStepWithTheBestHaveNoSpreadWhateverTheMachineDid() {
        double[] best = {50_000, 90_000, 40_000, 60_000};
        double[] halfAsFast = Arrays.stream(best).map(b -> b / 2).toArray();
        assertEquals(0, SwitchingBenchmark.interval(best, best), 1e-12);
        assertEquals(0, SwitchingBenchmark.interval(halfAsFast, best), 1e-12);
    }

    @Test
    void studentsTOverTheRatiosOfPairedTurns() {
        // ratios 0.9, 1.0, 1.1: standard deviation 0.1, standard error 0.1 / sqrt 3, t(2 degrees) = 4.303
        assertEquals(4.303 * 0.1 / Math.sqrt(3),
                SwitchingBenchmark.interval(new double[] {90, 200, 330}, new double[] {100, 200, 300}), 1e-9);
        // ratios 1 and 2: standard deviation sqrt(0.5), standard error 0.5, t(1 degree) = 12.706
        assertEquals(12.706 * 0.5, SwitchingBenchmark.interval(new double[] {1, 2}, new double[] {1, 1}), 1e-9);
    }

    @Test
    void thirtyDegreesTheTableBeyondTheNormalQuantile() {
        assertEquals(2.042, intervalOfAlternatingRatios(31) / standardError(31), 1e-9);
        assertEquals(1.96, intervalOfAlternatingRatios(32) / standardError(32), 1e-9);
    }

    /** Turns whose ratios to the best alternate 0.9 and 1.1, starting and ending with 0.9 when n is odd. */
    private static double intervalOfAlternatingRatios(int n) {
        double[] best = new double[n];
        double[] contender = new double[n];
        for (int i = 0; i < n; i++) {
            best[i] = 1_000 + i;
            contender[i] = best[i] * (i % 2 == 0 ? 0.9 : 1.1);
        }
        return SwitchingBenchmark.interval(contender, best);
    }

    private static double standardError(int n) {
        double mean = (0.9 * ((n + 1) / 2) + 1.1 * (n / 2)) / n;
        double sumSq = ((n + 1) / 2) * Math.pow(0.9 - mean, 2) + (n / 2) * Math.pow(1.1 - mean, 2);
        return Math.sqrt(sumSq / (n - 1) / n);
    }

    @Test
    void oneRoundGivesNoInterval() {
        assertTrue(Double.isNaN(SwitchingBenchmark.interval(new double[] {1}, new double[] {2})));
    }
}
