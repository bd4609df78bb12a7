package io.polycert.bench.replicated;

import io.polycert.bench.report.Medians;
import io.polycert.bench.report.ReportWriter;
import io.polycert.bench.report.RunResult;
import io.polycert.bench.workload.BankWorkload;
import io.polycert.bench.workload.BenchCluster;
import io.polycert.bench.workload.Contenders;
import io.polycert.bench.workload.Runner;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Small transactions against the store users compare PolyCert with: the replicated bank at R = 1 on PolyCert's
 * in-JVM replicas, and the same transfers on Infinispan embedded (replicated, transactional, optimistic; its own
 * JVM, see {@link InfinispanPeer}), the same number of members and one client thread per member for both. Turns
 * alternate round by round, so the ratio is measured under the same machine load, then the raw atomic broadcast of
 * PolyCert's stack is measured for reference.
 */
public final class BankVsInfinispan {

    /**
     * Settings of a run. {@code settleSeconds} of unmeasured load run on each store before the first round: each
     * JVM compiles its hot paths during its first seconds (Infinispan's turns rose from about 3.4k to 10k commits/s
     * over the rounds of a run without it), and a ratio taken while one of them is still cold says little.
     */
    public record Options(int members, int accounts, List<String> contenders, double warmupSeconds, double seconds,
            int rounds, double settleSeconds, Path peerBuild, Path output) {
        public Options {
            contenders = List.copyOf(contenders);
            if (members < 1 || accounts < 2 || rounds < 1 || !(seconds > 0) || warmupSeconds < 0
                    || settleSeconds < 0) {
                throw new IllegalArgumentException("need members >= 1, accounts >= 2, rounds >= 1, seconds > 0,"
                        + " warm-up and settle >= 0");
            }
        }
    }

    /** One contender's turns. */
    public record Row(String contender, double[] committedPerSecond, double[] abortedPerSecond, double[] p50Micros,
            double[] p90Micros, double[] p99Micros) {
        public double median() {
            return Medians.of(committedPerSecond);
        }
    }

    private final Options options;
    private final PrintStream out;

    /** Where a build of this repository leaves the peer (see {@link InfinispanPeer#defaultBuildDirectory()}). */
    public static Path defaultPeerBuild() {
        return InfinispanPeer.defaultBuildDirectory();
    }

    public BankVsInfinispan(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public List<Row> run() throws Exception {
        Files.createDirectories(options.output());
        BankWorkload bank = new BankWorkload(options.accounts(), 1, 100, BankWorkload.Conflicts.RANDOM);
        // contender -> per round: commits/s, aborts/s, p50, p90, p99 (microseconds)
        Map<String, List<double[]>> turns = new LinkedHashMap<>();
        long[] peerTotal;
        try (BenchCluster cluster = ClusterKind.IN_JVM.start(options.members(), bank);
                InfinispanPeer peer = InfinispanPeer.start(options.peerBuild(), options.members(), options.accounts(),
                        options.output().resolve("infinispan-peer.log"))) {
            out.printf(Locale.ROOT, "Bank transfers, R = 1: PolyCert (%s) vs Infinispan %s (REPL_SYNC, optimistic,"
                    + " repeatable read); %d members in one JVM each, 1 client thread per member, %,d accounts, %d"
                    + " rounds of %.0f s (warm-up %.0f s), turns alternating, after %.0f s of unmeasured load on"
                    + " each%n", String.join(", ", options.contenders()), peer.version(), options.members(),
                    options.accounts(), options.rounds(), options.seconds(), options.warmupSeconds(),
                    options.settleSeconds());
            cluster.populate();
            if (options.settleSeconds() > 0) {
                peer.run(0, options.settleSeconds());
                new Runner(cluster, bank, new Runner.Options(options.contenders(), 1, 0, options.settleSeconds()
                        / options.contenders().size(), 1, 41, 0), Map.of(), new PrintStream(
                        java.io.OutputStream.nullOutputStream())).run();
            }
            for (int round = 0; round < options.rounds(); round++) {
                boolean peerFirst = round % 2 == 1;
                if (peerFirst) {
                    peerTurn(peer, turns);
                }
                Runner.Options run = new Runner.Options(options.contenders(), 1, options.warmupSeconds(),
                        options.seconds(), 1, 42 + round, 0);
                List<RunResult> results = new Runner(cluster, bank, run, Map.of("replicas",
                        Integer.toString(options.members())), new PrintStream(java.io.OutputStream.nullOutputStream()))
                        .run();
                for (RunResult r : results) {
                    long aborts = r.abortsConflict() + r.abortsFalsePositive() + r.abortsOther();
                    long[] mix = new long[3];
                    for (RunResult.Second s : r.timeline()) {
                        mix[0] += s.nvc();
                        mix[1] += s.bfc();
                        mix[2] += s.vc();
                    }
                    turns.computeIfAbsent(r.contender(), k -> new ArrayList<>()).add(new double[] {
                            r.committedPerSecond(), aborts / r.seconds(), r.p50Micros(), r.p90Micros(),
                            r.p99Micros(), mix[0], mix[1], mix[2]});
                }
                if (!peerFirst) {
                    peerTurn(peer, turns);
                }
                out.printf(Locale.ROOT, "  round %d:%s%n", round + 1, describe(turns, round));
            }
            peerTotal = peer.check();
        }
        if (peerTotal[0] != peerTotal[1]) {
            throw new IllegalStateException("Infinispan's bank total is " + peerTotal[0] + ", expected "
                    + peerTotal[1]);
        }
        List<Row> rows = new ArrayList<>();
        turns.forEach((contender, list) -> rows.add(new Row(contender, column(list, 0), column(list, 1),
                column(list, 2), column(list, 3), column(list, 4))));
        Row infinispan = rows.stream().filter(r -> r.contender().equals("infinispan")).findFirst().orElseThrow();
        out.printf(Locale.ROOT, "%n%-14s %12s %10s %10s %14s%n", "contender", "commits/s", "p50 us", "p99 us",
                "x Infinispan");
        List<List<Object>> table = new ArrayList<>();
        for (Row r : rows) {
            out.printf(Locale.ROOT, "%-14s %12.0f %10.0f %10.0f %14.2f%n", r.contender(), r.median(),
                    Medians.of(r.p50Micros()), Medians.of(r.p99Micros()), r.median() / infinispan.median());
            for (int i = 0; i < r.committedPerSecond().length; i++) {
                table.add(List.of(r.contender(), i + 1, r.committedPerSecond()[i], r.abortedPerSecond()[i],
                        r.p50Micros()[i], r.p90Micros()[i], r.p99Micros()[i]));
            }
        }
        out.println("(medians of the rounds; the bank invariant held on both; Infinispan's total checked at the end)");
        List<Path> files = ReportWriter.writeTable(options.output(), "bank-vs-infinispan", List.of("contender",
                "round", "commits_per_second", "aborts_per_second", "p50_us", "p90_us", "p99_us"), table);
        out.println("results: " + files.get(0) + ", " + files.get(1));
        out.println();
        out.println("PolyCert's group stack alone, atomic broadcast of 64-byte messages, same members:");
        new io.polycert.bench.gcs.BroadcastBenchmark(new io.polycert.bench.gcs.BroadcastBenchmark.Options(
                options.members(), new int[] {64}, options.warmupSeconds(), options.seconds(), 1), out,
                java.util.EnumSet.of(io.polycert.bench.gcs.BroadcastBenchmark.Kind.POLYCERT)).run();
        return rows;
    }

    private void peerTurn(InfinispanPeer peer, Map<String, List<double[]>> turns) throws java.io.IOException {
        InfinispanPeer.Turn t = peer.run(options.warmupSeconds(), options.seconds());
        turns.computeIfAbsent("infinispan", k -> new ArrayList<>()).add(new double[] {t.committedPerSecond(),
                t.abortedPerSecond(), t.p50Micros(), t.p90Micros(), t.p99Micros()});
    }

    private static String describe(Map<String, List<double[]>> turns, int round) {
        StringBuilder sb = new StringBuilder();
        turns.forEach((contender, list) -> {
            if (list.size() > round) {
                double[] t = list.get(round);
                sb.append(String.format(Locale.ROOT, " %s %.0f/s", contender, t[0]));
                if (t.length > 5 && Contenders.adaptive(contender)) {
                    // what the oracle chose: an adaptive contender's throughput is read against it
                    sb.append(" (NVC/BFC/VC ").append(SwitchingBenchmark.mixText(new double[][] {{t[5], t[6], t[7]}}))
                            .append(')');
                }
            }
        });
        return sb.toString();
    }

    private static double[] column(List<double[]> rows, int i) {
        return rows.stream().mapToDouble(r -> r[i]).toArray();
    }
}
