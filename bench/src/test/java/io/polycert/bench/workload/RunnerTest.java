package io.polycert.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.report.RunResult;
import io.polycert.gcs.GroupStack;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RunnerTest {

    @Test
    void runsContendersSideBySideOnInJvmReplicas() throws Exception {
        BankWorkload bank = new BankWorkload(1000, 10);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
        try (InJvmCluster cluster = new InJvmCluster(3, bank, GroupStack.embedded(), Duration.ofMillis(200), null)) {
            cluster.populate();
            List<RunResult> results = new Runner(cluster, bank, new Runner.Options(List.of("nvc", "vc", "ucb"), 1,
                    0.2, 1, 2, 42, 0, 1), Map.of("replicas", "3"), out).run();
            assertEquals(3, results.size());
            for (RunResult r : results) {
                assertTrue(r.committed() > 0, r.contender() + " committed nothing");
                assertEquals("10", r.parameter("readSet"));
                assertEquals("3", r.parameter("replicas"));
                assertEquals(2, r.timeline().size(), "one second per turn, two turns");
                assertTrue(r.seconds() > 1.5 && r.seconds() < 4, "two 1-s windows, was " + r.seconds());
                assertTrue(r.p50Micros() > 0 && r.p50Micros() <= r.p99Micros());
                assertTrue(r.bytesPerTransaction() > 0);
                // Every bank transaction writes, so its clients spend part of their time committing, never more
                // than all of it.
                assertTrue(r.commitShare() > 0 && r.commitShare() <= 1, "commit share " + r.commitShare());
                assertTrue(List.of("gave-up", "transfer").containsAll(r.kinds().stream().map(RunResult.Kind::name)
                        .toList()), "kinds " + r.kinds()); // gave-up: the bank's client names no kind it gave up
                // read a moment apart from the commit count: the one operation in flight per client may differ
                assertEquals(r.committed(), r.kind("transfer").count(), 3, "every operation counted by its kind");
                assertTrue(r.kind("transfer").meanMicros() > 0);
            }
            RunResult nvc = results.get(0);
            RunResult vc = results.get(1);
            assertEquals(0, nvc.timeline().stream().mapToLong(s -> s.vc() + s.bfc()).sum(), "static NVC only");
            assertEquals(0, vc.timeline().stream().mapToLong(s -> s.nvc() + s.bfc()).sum(), "static VC only");
            assertEquals(nvc.committed(), nvc.timeline().stream().mapToLong(RunResult.Second::total).sum(),
                    2 * Math.max(10, nvc.committed() / 10), "the timeline accounts for the commits, roughly");
        }
        String printed = text.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("NVC 100%") && printed.contains("[settling, 1 of 1 s]"), printed);
    }

    @Test
    void partialsSurviveTheirTextFormAndConcatenate() {
        Histogram h = new Histogram(3);
        h.recordValue(1_000);
        h.recordValue(2_000_000);
        ReplicaLoad.Partial p = new ReplicaLoad.Partial(2.5, 100, 10, 3, 1, 2, h, 4096, 95, 7, 1_250_000_000L,
                5_000_000_000L,
                List.of(new long[] {5, 20, 10, 15}, new long[] {5, 20, 10, 15}),
                new java.util.TreeMap<>(Map.of("T1", new long[] {60, 6_000_000L}, "OP15", new long[] {40, 1_000_000L})));
        ReplicaLoad.Partial back = ReplicaLoad.Partial.decode(p.encode());
        assertEquals(p.committed(), back.committed());
        assertEquals(p.abortsOther(), back.abortsOther());
        assertEquals(p.gcMillis(), back.gcMillis());
        assertEquals(p.commitNanos(), back.commitNanos());
        assertEquals(p.clientNanos(), back.clientNanos());
        assertEquals(2, back.timeline().size());
        assertEquals(15, back.timeline().get(1)[3]);
        assertEquals(2, back.latencyNanos().getTotalCount());
        assertEquals(List.of("OP15", "T1"), List.copyOf(back.kinds().keySet()));
        assertEquals(6_000_000L, back.kinds().get("T1")[1]);
        ReplicaLoad.Partial twice = p.then(back);
        assertEquals(5.0, twice.seconds());
        assertEquals(200, twice.committed());
        assertEquals(2_500_000_000L, twice.commitNanos());
        assertEquals(120, twice.kinds().get("T1")[0]);
        RunResult merged = ReplicaLoad.combine("b", "c", Map.of(), List.of(p, back), true);
        assertEquals(new RunResult.Kind("T1", 120, 100.0), merged.kind("T1"), "mean of 12 ms over 120 operations");
        assertThrows(IllegalArgumentException.class, () -> new ReplicaLoad.Partial(1, 1, 0, 0, 0, 0, h, 0, 0, 0, 0,
                0, List.of(), new java.util.TreeMap<>(Map.of("a/b", new long[] {1, 1}))), "a kind the text form"
                + " cannot carry");
        assertEquals(0.25, ReplicaLoad.combine("b", "c", Map.of(), List.of(p, back), true).commitShare(), 1e-12,
                "commit time over client time, summed over the replicas");
        assertEquals(4, twice.timeline().size());
        assertEquals(4, twice.latencyNanos().getTotalCount());
        assertThrows(IllegalArgumentException.class, () -> ReplicaLoad.Partial.decode("1;2;3"));
        assertThrows(IllegalArgumentException.class, () -> ReplicaLoad.Partial.decode(p.encode().replace("100", "x")));
    }

    @Test
    void unknownNamesAreRejectedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Contenders.oracle("fastest", Duration.ofSeconds(1), null));
        assertTrue(e.getMessage().contains("dist-ucb"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Workloads.fromSpec("bank:accounts=ten"));
        assertThrows(IllegalArgumentException.class, () -> Workloads.fromSpec("bank:colour=red"));
        assertThrows(IllegalArgumentException.class, () -> Workloads.fromSpec("tpcc"));
        Workload w = Workloads.fromSpec("bank:accounts=500,readSet=7");
        assertEquals("bank:accounts=500,readSet=7,writes=100,conflicts=random,ids=dense", Workloads.specOf(w));
        assertEquals(Workloads.specOf(w), Workloads.specOf(Workloads.fromSpec(Workloads.specOf(w))));
        assertThrows(IllegalArgumentException.class, () -> Workloads.fromSpec("bank:conflicts=some"));
        assertThrows(IllegalArgumentException.class, () -> Workloads.fromSpec("bank:writes=101"));
        Workload scattered = Workloads.fromSpec("bank:accounts=500,ids=scattered");
        assertEquals(Workloads.specOf(scattered), Workloads.specOf(Workloads.fromSpec(Workloads.specOf(scattered))));
        assertTrue(Workloads.specOf(scattered).endsWith(",ids=scattered"), Workloads.specOf(scattered));
        assertThrows(IllegalArgumentException.class, () -> Workloads.fromSpec("bank:ids=sparse"));
    }
}
