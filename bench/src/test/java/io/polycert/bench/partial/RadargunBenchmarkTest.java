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

/** A smoke run of the Radargun-style benchmark (the full run recorded in docs/PARTIAL.md is tagged "bench"). */
class RadargunBenchmarkTest {

    @Test
    void smokeRunCommitsWithEveryContender() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        List<RadargunBenchmark.Row> rows = new RadargunBenchmark(new RadargunBenchmark.Options(3, 1, new int[] {500},
                new int[] {2}, ConsistencyLevel.REPEATABLE_READ_WRITE_SKEW_CHECK,
                List.of(RadargunBenchmark.Contender.values()), 10, 0.1, 0.2, 0.5, 2, 0.2),
                new PrintStream(text, true, StandardCharsets.UTF_8)).run();
        assertEquals(3, rows.size());
        rows.forEach(r -> assertTrue(r.committedPerSecond() > 0 && r.meanCommitMicros() > 0, r.toString()));
        rows.forEach(r -> assertEquals(2, r.roundsPerSecond().length, "one figure per round"));
        assertTrue(text.toString(StandardCharsets.UTF_8).contains("vs 2PC"));
    }

    @Test
    @Tag("bench")
    void fullRadargunBenchmark() throws Exception {
        new RadargunBenchmark(RadargunBenchmark.Options.defaults(), System.out).run();
    }
}
