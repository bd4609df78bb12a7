package io.polycert.bench.partial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.partial.ConsistencyLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A smoke run of the key-value spread benchmark (the full run recorded in docs/PARTIAL.md is tagged "bench"). */
class KeyValueSpreadBenchmarkTest {

    /**
     * Moderate contention and a 1.5 s window: at spread 10 with half a second, 2PC's cross-owner deadlocks (ended by
     * its 500 ms lock timeout) could leave it without a single commit on a loaded CI machine.
     */
    @Test
    void smokeRunIncrementsWithEveryContender() throws Exception {
        List<KeyValueSpreadBenchmark.Row> rows = new KeyValueSpreadBenchmark(new KeyValueSpreadBenchmark.Options(3,
                1, 1_000, new double[] {100}, 1.0, ConsistencyLevel.SERIALIZABLE,
                List.of(RadargunBenchmark.Contender.values()), new int[] {0}, 0.2, 1.5),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
        assertEquals(3, rows.size());
        rows.forEach(r -> assertTrue(r.commandsPerSecond() > 0, r.toString()));
    }

    /** Parallel apply off and on, side by side, with increments and reads mixed (the seed's two commands). */
    @Test
    void smokeRunComparesParallelApplyOffAndOn() throws Exception {
        List<KeyValueSpreadBenchmark.Row> rows = new KeyValueSpreadBenchmark(new KeyValueSpreadBenchmark.Options(3,
                1, 1_000, new double[] {100}, 0.5, ConsistencyLevel.SERIALIZABLE,
                List.of(RadargunBenchmark.Contender.TOM_2, RadargunBenchmark.Contender.TWO_PC), new int[] {0, 2},
                0.2, 1.5), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
        assertEquals(List.of(0, 2, 0), rows.stream().map(KeyValueSpreadBenchmark.Row::applyThreads).toList(),
                "TOM-2 off and on; 2PC off only (it applies on its commit message)");
        rows.forEach(r -> assertTrue(r.commandsPerSecond() > 0, r.toString()));
    }

    @Test
    @Tag("bench")
    void fullKeyValueSpreadBenchmark() throws Exception {
        new KeyValueSpreadBenchmark(KeyValueSpreadBenchmark.Options.defaults(), System.out).run();
    }
}
