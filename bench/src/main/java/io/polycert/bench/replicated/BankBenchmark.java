package io.polycert.bench.replicated;

import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.bench.report.Charts;
import io.polycert.bench.report.ReportWriter;
import io.polycert.bench.report.RunResult;
import io.polycert.bench.workload.BankWorkload;
import io.polycert.bench.workload.BenchCluster;
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
 * The replicated Bank benchmark (PolyCert's Fig. 2 and Fig. 4): every transaction reads R accounts and transfers
 * between two; for each R, NVC, BFC and VC take turns on one cluster, so every ratio compares figures measured
 * side by side. Writes CSV, JSON, and the throughput and latency charts.
 */
public final class BankBenchmark {

    /** Settings of a run. */
    public record Options(ClusterKind runner, int replicas, int[] readSets, int accounts, int writePercent,
            BankWorkload.Conflicts conflicts, BankWorkload.Ids ids, Runner.Options run, Path output,
            EmulatedNetwork network) {
    }

    private final Options options;
    private final PrintStream out;

    public BankBenchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public List<RunResult> run() throws Exception {
        int maxRead = java.util.Arrays.stream(options.readSets()).max().orElse(0);
        int accounts = Math.max(options.accounts(), maxRead);
        Files.createDirectories(options.output());
        out.printf(Locale.ROOT, "Replicated Bank: %d %s replicas, %d thread(s) each, %,d accounts, %d%% transfers,"
                + " %s accounts with %s ids, %d round(s) of %.0f s per protocol, network %s%n", options.replicas(),
                options.runner().description(), options.run().threadsPerMember(), accounts, options.writePercent(),
                options.conflicts().name().toLowerCase(Locale.ROOT), options.ids().name().toLowerCase(Locale.ROOT),
                options.run().rounds(), options.run().seconds(), options.network());
        List<RunResult> all = new ArrayList<>();
        out.printf(Locale.ROOT, "%8s %-14s %12s %8s %8s %10s %10s %10s %12s %8s%n", "R", "contender", "commits/s",
                "aborts", "BF f.p.", "p50 us", "p90 us", "p99 us", "bytes/tx", "commit");
        for (int readSet : options.readSets()) {
            BankWorkload bank = new BankWorkload(accounts, readSet, options.writePercent(), options.conflicts(),
                    options.ids());
            try (BenchCluster cluster = options.runner().start(options.replicas(), bank, options.network())) {
                cluster.populate();
                Map<String, String> extra = new LinkedHashMap<>();
                extra.put("replicas", Integer.toString(options.replicas()));
                extra.put("runner", options.runner().name().toLowerCase(Locale.ROOT));
                if (!options.network().isNone()) {
                    extra.put("network", options.network().toString());
                }
                List<RunResult> rows = new Runner(cluster, bank, options.run(), extra, new PrintStream(
                        java.io.OutputStream.nullOutputStream())).run();
                for (RunResult r : rows) {
                    out.printf(Locale.ROOT, "%8d %-14s %12.0f %7.1f%% %8d %10.0f %10.0f %10.0f %12.0f %7.1f%%%n",
                            readSet, r.contender(), r.committedPerSecond(), 100 * r.abortRate(),
                            r.abortsFalsePositive(), r.p50Micros(), r.p90Micros(), r.p99Micros(),
                            r.bytesPerTransaction(), 100 * r.commitShare());
                }
                all.addAll(rows);
                if (cluster.networkSummary() != null) {
                    out.println("         " + cluster.networkSummary());
                }
            }
        }
        out.println("(bank invariant and equal state checked at every replica)");
        ReportWriter.write(all, options.output(), "bank");
        Charts.throughputByReadSet(all, options.output().resolve("fig2-bank-throughput.png"));
        Charts.latencyByReadSet(all, options.output().resolve("fig4-bank-latency.png"));
        out.println("results: " + options.output().resolve("bank.csv") + ", .json, fig2-bank-throughput.png,"
                + " fig4-bank-latency.png");
        if (options.runner() == ClusterKind.IN_JVM) {
            // The same group stack's raw atomic broadcast, same members, for comparison: messages of the size of
            // an R=1 NVC commit, one in flight per member (like one thread per replica) and with a full window.
            out.println();
            out.println("The same group stack's atomic broadcast alone, 64-byte messages:");
            new io.polycert.bench.gcs.BroadcastBenchmark(new io.polycert.bench.gcs.BroadcastBenchmark.Options(
                    options.replicas(), new int[] {64}, options.run().warmupSeconds(), options.run().seconds(), 1,
                    options.network()),
                    out, java.util.EnumSet.of(io.polycert.bench.gcs.BroadcastBenchmark.Kind.POLYCERT)).run();
        }
        return all;
    }
}
