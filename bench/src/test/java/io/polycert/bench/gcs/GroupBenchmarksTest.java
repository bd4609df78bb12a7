package io.polycert.bench.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Smoke versions of the group benchmarks (the full runs recorded in docs/GCS.md are tagged "bench"). */
class GroupBenchmarksTest {

    private static PrintStream sink() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    @Test
    void broadcastSmokeRunMeasuresAllThreeKinds() throws Exception {
        List<BroadcastBenchmark.Row> rows = new BroadcastBenchmark(
                new BroadcastBenchmark.Options(3, new int[] {1000}, 0.2, 0.3, 1), sink()).run();
        assertEquals(3, rows.size());
        rows.forEach(r -> assertTrue(r.messagesPerSecond() > 0 && r.idleP50Micros() > 0, r.toString()));
    }

    @Test
    void multicastSmokeRunCountsMessagesPerMulticast() throws Exception {
        List<MulticastBenchmark.Row> rows = new MulticastBenchmark(
                new MulticastBenchmark.Options(3, new int[] {2}, 0.3), sink()).run();
        assertEquals(2, rows.size());
        // TOM-3 sends n DATA, n proposals and n finals; TOM-2 n DATA and n(n-1) proposals
        assertEquals(6.0, rows.get(0).messagesPerMulticast(), 0.5);
        assertEquals(4.0, rows.get(1).messagesPerMulticast(), 0.5);
    }

    @Test
    @Tag("bench")
    void fullBroadcastBenchmark() throws Exception {
        new BroadcastBenchmark(BroadcastBenchmark.Options.defaults(), System.out).run();
    }

    @Test
    @Tag("bench")
    void fullMulticastBenchmark() throws Exception {
        new MulticastBenchmark(MulticastBenchmark.Options.defaults(), System.out).run();
    }
}
