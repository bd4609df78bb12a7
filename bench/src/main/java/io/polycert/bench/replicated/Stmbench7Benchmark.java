package io.polycert.bench.replicated;

import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.bench.report.Charts;
import io.polycert.bench.report.ReportWriter;
import io.polycert.bench.report.RunResult;
import io.polycert.bench.workload.BenchCluster;
import io.polycert.bench.workload.Runner;
import io.polycert.bench.workload.Workload;
import io.polycert.bench.workload.Workloads;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * STMBench7 on replicated PolyCert (the paper's Fig. 8): for each mix, a fresh cluster builds the structure, and
 * the static protocols and the adaptive oracles take turns on it. Prints each contender's throughput, abort rate
 * and latency, and its ratio to VC; writes CSV, JSON and the normalized-throughput chart.
 */
public final class Stmbench7Benchmark {

    /**
     * @param preset {@code small} (CI smoke) or {@code full} (STMBench7's sizes)
     * @param mixes {@code read-dominated}, {@code read-write}, {@code write-dominated}
     */
    public record Options(ClusterKind runner, int replicas, int threadsPerReplica, String preset, List<String> mixes,
            boolean longTraversals, boolean structureModifications, Runner.Options run, Path output,
            EmulatedNetwork network) {
    }

    private final Options options;
    private final PrintStream out;

    public Stmbench7Benchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public List<RunResult> run() throws Exception {
        Files.createDirectories(options.output());
        List<RunResult> all = new ArrayList<>();
        for (String mix : options.mixes()) {
            Workload workload = Workloads.fromSpec("stmbench7:preset=" + options.preset() + ",mix=" + mix
                    + ",long=" + options.longTraversals() + ",sm=" + options.structureModifications());
            out.printf(Locale.ROOT, "%nSTMBench7 %s, %s preset, long traversals %s, structure modifications %s:"
                    + " %d %s replicas, %d thread(s) each, %d round(s) of %.0f s per contender, network %s%n", mix,
                    options.preset(), onOff(options.longTraversals()), onOff(options.structureModifications()),
                    options.replicas(), options.runner().description(), options.run().threadsPerMember(),
                    options.run().rounds(), options.run().seconds(), options.network());
            long t0 = System.nanoTime();
            try (BenchCluster cluster = options.runner().start(options.replicas(), workload, options.network())) {
                cluster.populate();
                out.printf(Locale.ROOT, "  structure built and replicated in %.1f s%n", (System.nanoTime() - t0)
                        / 1e9);
                Map<String, String> extra = new LinkedHashMap<>();
                extra.put("replicas", Integer.toString(options.replicas()));
                extra.put("runner", options.runner().name().toLowerCase(Locale.ROOT));
                if (!options.network().isNone()) {
                    extra.put("network", options.network().toString());
                }
                List<RunResult> results = new Runner(cluster, workload, options.run(), extra, out).run();
                table(results);
                kindsTable(results);
                all.addAll(results);
                out.println("  (invariants and equal state checked at every replica)");
                if (cluster.networkSummary() != null) {
                    out.println("  " + cluster.networkSummary());
                }
            }
        }
        ReportWriter.write(all, options.output(), "stmbench7");
        Charts.normalizedThroughput(all, "mix", options.output().resolve("fig8-stmbench7.png"));
        for (RunResult r : all) {
            if (io.polycert.bench.workload.Contenders.adaptive(r.contender())) {
                Charts.protocolMixOverTime(r, options.output().resolve("mix-" + r.parameter("mix") + "-"
                        + r.contender() + ".png"));
            }
        }
        out.println("results: " + options.output().resolve("stmbench7.csv") + ", .json, fig8-stmbench7.png,"
                + " mix-<mix>-<oracle>.png");
        return all;
    }

    private void table(List<RunResult> results) {
        double vc = results.stream().filter(r -> r.contender().equals("vc")).mapToDouble(
                RunResult::committedPerSecond).findFirst().orElse(Double.NaN);
        out.printf(Locale.ROOT, "  %-14s %10s %8s %8s %8s %10s %10s %10s %8s%n", "contender", "tx/s", "x VC", "aborts",
                "BF f.p.", "p50 us", "p99 us", "bytes/tx", "commit");
        for (RunResult r : results) {
            out.printf(Locale.ROOT, "  %-14s %10.0f %8.2f %7.1f%% %8d %10.0f %10.0f %10.0f %7.1f%%%n", r.contender(),
                    r.committedPerSecond(), r.committedPerSecond() / vc, 100 * r.abortRate(),
                    r.abortsFalsePositive(), r.p50Micros(), r.p99Micros(), r.bytesPerTransaction(),
                    100 * r.commitShare());
        }
        // Commits that cost nothing, with execution as long as it was, would take a contender to 1 / (1 - its
        // commit share) of its rate: about what choosing protocols can gain (shared cores blur it).
        out.println("  (commit: share of the client threads' time spent in commits that committed)");
    }

    /**
     * Per operation kind: its share of the operations and each static protocol's mean time (retries included),
     * then what running every kind by its fastest static protocol would give against VC.
     */
    private void kindsTable(List<RunResult> results) {
        Map<String, RunResult> statics = staticRuns(results);
        if (statics.size() < 3) {
            return;
        }
        Map<String, Long> counts = kindCounts(results);
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        out.printf(Locale.ROOT, "  per operation kind (mean us per completed operation, retries and given-up ones"
                + " included):%n");
        out.printf(Locale.ROOT, "  %-6s %7s %11s %11s %11s %5s%n", "kind", "share", "nvc", "bfc", "vc", "best");
        counts.forEach((kind, n) -> {
            double[] t = new double[3];
            int i = 0;
            for (RunResult r : statics.values()) {
                RunResult.Kind k = r.kind(kind);
                t[i++] = k == null ? Double.NaN : k.meanMicros();
            }
            String best = java.util.Objects.requireNonNullElse(fastest(statics, kind), "-");
            out.printf(Locale.ROOT, "  %-6s %6.1f%% %11.0f %11.0f %11.0f %5s%n", kind, 100.0 * n / total, t[0], t[1],
                    t[2], best);
        });
        List<String> unmeasured = counts.keySet().stream().filter(kind -> fastest(statics, kind) == null).toList();
        if (unmeasured.isEmpty()) {
            out.printf(Locale.ROOT, "  each kind by its fastest static protocol: %.2f x VC (the mix weighted by these"
                    + " means)%n", bestStaticPerKind(results));
        } else {
            out.printf(Locale.ROOT, "  each kind by its fastest static protocol: not known (%s not completed under"
                    + " every static protocol)%n", String.join(", ", unmeasured));
        }
    }

    /** The static contenders' runs, in the order NVC, BFC, VC (absent ones left out). */
    private static Map<String, RunResult> staticRuns(List<RunResult> results) {
        Map<String, RunResult> statics = new LinkedHashMap<>();
        for (String name : List.of("nvc", "bfc", "vc")) {
            results.stream().filter(r -> r.contender().equals(name)).findFirst().ifPresent(r -> statics.put(name, r));
        }
        return statics;
    }

    /** How many operations of each kind all contenders completed: the mix, as run. */
    private static Map<String, Long> kindCounts(List<RunResult> results) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (RunResult r : results) {
            for (RunResult.Kind k : r.kinds()) {
                counts.merge(k.name(), k.count(), Long::sum);
            }
        }
        return counts;
    }

    /**
     * VC's mean time per operation over the mix, divided by the same with each kind timed by its fastest static
     * protocol: what an oracle that knew each kind's best protocol would gain over VC, if the kinds' times did
     * not depend on one another. NaN without NVC, BFC and VC runs, or a kind one of them never completed.
     */
    static double bestStaticPerKind(List<RunResult> results) {
        Map<String, RunResult> statics = staticRuns(results);
        if (statics.size() < 3) {
            return Double.NaN;
        }
        double vc = 0;
        double best = 0;
        for (Map.Entry<String, Long> e : kindCounts(results).entrySet()) {
            String fastest = fastest(statics, e.getKey());
            if (fastest == null) {
                return Double.NaN;
            }
            vc += e.getValue() * statics.get("vc").kind(e.getKey()).meanMicros();
            best += e.getValue() * statics.get(fastest).kind(e.getKey()).meanMicros();
        }
        return best == 0 ? Double.NaN : vc / best;
    }

    /** The static protocol with the smallest mean for {@code kind}; null if one of them has no mean for it. */
    private static String fastest(Map<String, RunResult> statics, String kind) {
        String fastest = null;
        double time = Double.POSITIVE_INFINITY;
        for (Map.Entry<String, RunResult> e : statics.entrySet()) {
            RunResult.Kind k = e.getValue().kind(kind);
            if (k == null || Double.isNaN(k.meanMicros())) {
                return null;
            }
            if (k.meanMicros() < time) {
                time = k.meanMicros();
                fastest = e.getKey();
            }
        }
        return fastest;
    }

    private static String onOff(boolean b) {
        return b ? "on" : "off";
    }
}
