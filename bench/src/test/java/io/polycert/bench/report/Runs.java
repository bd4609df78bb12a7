package io.polycert.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Synthetic results for the report tests. */
final class Runs {
    private Runs() {
    }

    /** Parameters from alternating names and values, in that order. */
    static Map<String, String> params(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    /** A run of {@code seconds} seconds committing {@code perSecond} transactions each second, NVC-certified. */
    static RunResult run(String benchmark, String contender, Map<String, String> parameters, int seconds,
            long perSecond, double p50) {
        List<RunResult.Second> timeline = new ArrayList<>();
        for (int i = 1; i <= seconds; i++) {
            long ro = perSecond / 4;
            long nvc = perSecond / 4;
            long bfc = perSecond / 4;
            timeline.add(new RunResult.Second(i, ro, nvc, bfc, perSecond - ro - nvc - bfc));
        }
        return new RunResult(benchmark, contender, parameters, seconds, perSecond * seconds,
                perSecond * seconds / 4, 10, 2, 1, p50, p50 * 2, p50 * 5, 64_000, 1_000, 12, timeline, 0.25,
                List.of(new RunResult.Kind("transfer", perSecond * seconds, p50)));
    }

    /** Fig. 2/4/5-style results: NVC, BFC, VC at read sets 10, 100, 1000, 10000. */
    static List<RunResult> readSetSweep() {
        List<RunResult> runs = new ArrayList<>();
        String[] contenders = {"NVC", "BFC", "VC"};
        int[] readSets = {10, 100, 1000, 10000};
        for (int c = 0; c < contenders.length; c++) {
            for (int rs : readSets) {
                // NVC best at small read sets, BFC in the middle, VC at large ones.
                double nvc = 200_000.0 / rs;
                double bfc = 60_000.0 / Math.sqrt(rs);
                double vc = 5_000;
                double tput = c == 0 ? nvc : c == 1 ? bfc : vc;
                runs.add(run("oracle", contenders[c], params("readSet", Integer.toString(rs), "replicas", "3"), 3,
                        Math.max(1, Math.round(tput)), 50 + rs * (c + 1) * 0.5));
            }
        }
        return runs;
    }
}
