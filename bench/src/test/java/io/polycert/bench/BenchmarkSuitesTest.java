package io.polycert.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.bench.report.RunResult;
import io.polycert.bench.replicated.BankBenchmark;
import io.polycert.bench.replicated.ClusterKind;
import io.polycert.bench.replicated.Stmbench7Benchmark;
import io.polycert.bench.workload.BankWorkload;
import io.polycert.bench.workload.Runner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark suites from JUnit: small smoke versions in the normal suite; the full runs are tagged
 * {@code bench} and opt-in, one or several picked by name:
 *
 * <pre>
 * ./mvnw -pl bench -am verify -Pbench -Dbench=stmbench7      # or bank, oracle, bank-processes; none: all
 * </pre>
 *
 * Full runs write their CSV, JSON and charts under {@code bench/target/results/}.
 */
class BenchmarkSuitesTest {

    @Test
    void bankSmokeWritesResultsAndCharts(@TempDir Path dir) throws Exception {
        List<RunResult> results = new BankBenchmark(new BankBenchmark.Options(ClusterKind.IN_JVM, 3,
                new int[] {1, 100}, 500, 100, BankWorkload.Conflicts.RANDOM, BankWorkload.Ids.DENSE,
                new Runner.Options(List.of("nvc", "bfc",
                        "vc"), 1, 0.2, 0.6, 1, 1, 0), dir, EmulatedNetwork.NONE), quiet()).run();
        assertEquals(6, results.size());
        results.forEach(r -> assertTrue(r.committed() > 0, r.contender() + " at R=" + r.parameter("readSet")));
        for (String f : new String[] {"bank.csv", "bank.json", "fig2-bank-throughput.png", "fig4-bank-latency.png"}) {
            assertTrue(Files.size(dir.resolve(f)) > 0, f);
        }
        assertEquals(1 + 6, Files.readAllLines(dir.resolve("bank.csv")).size());
    }

    /** 6,000 accounts: the scattered bank populates them in two commits, and every replica checks their total. */
    @Test
    void scatteredIdsMakeNvcsReadSetCostSeveralBytesPerRead(@TempDir Path dir) throws Exception {
        double[] bytesPerRead = new double[2];
        for (BankWorkload.Ids ids : BankWorkload.Ids.values()) {
            List<RunResult> results = new BankBenchmark(new BankBenchmark.Options(ClusterKind.IN_JVM, 3,
                    new int[] {200}, 6_000, 100, BankWorkload.Conflicts.RANDOM, ids, new Runner.Options(List.of(
                            "nvc", "bfc"), 1, 0.2, 0.6, 1, 1, 0), dir.resolve(ids.name()), EmulatedNetwork.NONE), quiet())
                    .run();
            RunResult nvc = results.get(0);
            assertEquals("nvc", nvc.contender());
            assertTrue(nvc.committed() > 0 && results.get(1).committed() > 0, ids + ": " + results);
            bytesPerRead[ids.ordinal()] = nvc.bytesPerTransaction() / 200;
        }
        assertTrue(bytesPerRead[0] < 2, "dense ids: " + bytesPerRead[0] + " bytes per read");
        assertTrue(bytesPerRead[1] > 5, "scattered ids: " + bytesPerRead[1] + " bytes per read");
    }

    @Test
    void stmbench7SmokeComparesOraclesWithStaticProtocolsOnAnEmulatedNetwork(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<RunResult> results = new Stmbench7Benchmark(new Stmbench7Benchmark.Options(ClusterKind.IN_JVM, 3, 1,
                "small", List.of("write-dominated"), true, true, new Runner.Options(List.of("vc", "ucb"), 1, 0.2, 1,
                        1, 1, 0), dir, EmulatedNetwork.GIGABIT), new PrintStream(printed, true,
                                StandardCharsets.UTF_8)).run();
        String text = printed.toString(StandardCharsets.UTF_8);
        assertTrue(text.matches("(?s).*1,000 Mbit/s, 50 us one way: [1-9][0-9,]* messages.*"), text);
        assertEquals(List.of("vc", "ucb"), results.stream().map(RunResult::contender).toList());
        for (RunResult r : results) {
            assertTrue(r.committed() > 0, r.contender());
            assertEquals("write-dominated", r.parameter("mix"));
            assertEquals("true", r.parameter("longTraversals"));
            assertEquals("1,000 Mbit/s, 50 us one way", r.parameter("network"), "the results record the network");
        }
        RunResult vc = results.get(0);
        assertEquals(0, vc.timeline().stream().mapToLong(s -> s.nvc() + s.bfc()).sum(), "static VC certifies by VC");
        assertTrue(vc.timeline().stream().mapToLong(RunResult.Second::vc).sum() > 0);
        for (String f : new String[] {"stmbench7.csv", "stmbench7.json", "fig8-stmbench7.png",
                "mix-write-dominated-ucb.png"}) {
            assertTrue(Files.size(dir.resolve(f)) > 0, f);
        }
    }

    // ---- full runs, opt-in ----------------------------------------------------------------------------------

    @Test
    @Tag("bench")
    void bank() {
        full("bank", "bank", "--seconds", "3", "--rounds", "2");
    }

    @Test
    @Tag("bench")
    void bankProcesses() {
        full("bank-processes", "bank", "--runner", "processes", "--read-sets", "1,100,10000", "--seconds", "3");
    }

    @Test
    @Tag("bench")
    void oracle() {
        full("oracle", "oracle");
    }

    @Test
    @Tag("bench")
    void stmbench7() {
        full("stmbench7", "stmbench7", "--seconds", "10", "--rounds", "2");
    }

    @Test
    @Tag("bench")
    void stmbench7Full() {
        full("stmbench7-full", "stmbench7", "--preset", "full", "--mixes", "write-dominated", "--seconds", "20",
                "--rounds", "2");
    }

    /** Runs the CLI command {@code args} if {@code name} was picked by {@code -Dbench}. */
    private static void full(String name, String... args) {
        String picked = System.getProperty("bench", "");
        assumeTrue(picked.isBlank() || Arrays.asList(picked.split(",")).contains(name),
                "not picked by -Dbench=" + picked);
        String[] withOut = Arrays.copyOf(args, args.length + 2);
        withOut[args.length] = "--out";
        withOut[args.length + 1] = Path.of("target", "results", name).toString();
        assertEquals(0, Main.run(withOut, System.out, System.err), name + " failed");
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
