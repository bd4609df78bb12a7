package io.polycert.bench.replicated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.report.RunResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class Stmbench7BenchmarkTest {

    private static RunResult run(String contender, double meanA, double meanB) {
        return new RunResult("stmbench7", contender, Map.of(), 1, 100, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, List.of(),
                0.2, List.of(new RunResult.Kind("A", 90, meanA), new RunResult.Kind("B", 10, meanB)));
    }

    @Test
    void eachKindByItsFastestStaticProtocolAgainstVc() {
        // VC: 90 x 20 + 10 x 500 = 6,800 us per 100 operations; the fastest per kind: 90 x 10 (NVC) + 10 x 500 (VC)
        List<RunResult> results = List.of(run("nvc", 10, 1_000), run("bfc", 12, 900), run("vc", 20, 500),
                run("ucb", 11, 520));
        assertEquals(6_800.0 / 5_900, Stmbench7Benchmark.bestStaticPerKind(results), 1e-12);
    }

    @Test
    void withoutEveryStaticProtocolThereIsNoFigure() {
        assertTrue(Double.isNaN(Stmbench7Benchmark.bestStaticPerKind(List.of(run("nvc", 1, 1), run("vc", 2, 2)))));
        RunResult bfcWithoutB = new RunResult("stmbench7", "bfc", Map.of(), 1, 90, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0,
                List.of(), 0.2, List.of(new RunResult.Kind("A", 90, 1)));
        assertTrue(Double.isNaN(Stmbench7Benchmark.bestStaticPerKind(List.of(run("nvc", 1, 1), bfcWithoutB,
                run("vc", 2, 2)))), "a kind one static protocol never ran");
    }
}
