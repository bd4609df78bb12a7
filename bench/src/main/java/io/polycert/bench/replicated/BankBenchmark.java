package io.polycert.bench.replicated;

import io.polycert.core.TransactionAbortedException;
import io.polycert.certification.CertificationStatistics;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * The replicated Bank benchmark (PolyCert's Fig. 2): every transaction reads R accounts and transfers between two,
 * on 3 in-JVM replicas; NVC, BFC and VC measured side by side in one run, interleaved round by round.
 */
public final class BankBenchmark {

    /** Settings of a run. */
    public record Options(int replicas, int threadsPerReplica, int[] readSets, List<Protocol> protocols,
            double warmupSeconds, double seconds, int rounds, boolean disjoint) {
        public static Options defaults() {
            return new Options(3, 1, new int[] {1, 10, 100, 1_000, 10_000, 100_000}, List.of(Protocol.values()), 1,
                    3, 1, false);
        }
    }

    /** One protocol at one read-set size. */
    public record Row(int readSet, Protocol protocol, double committedPerSecond, double abortRate,
            double falsePositiveRate, double p50Micros, double p99Micros, double bytesPerTransaction) {
    }

    private final Options options;
    private final PrintStream out;

    public BankBenchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public List<Row> run() throws Exception {
        int maxRead = java.util.Arrays.stream(options.readSets()).max().orElse(0);
        int accounts = Math.max(1000, maxRead);
        out.printf(Locale.ROOT, "Replicated Bank: %d in-JVM replicas, %d thread(s) each, %,d accounts, %s, %.0f s"
                + " trials%n", options.replicas(), options.threadsPerReplica(), accounts,
                options.disjoint() ? "disjoint accounts per thread" : "random accounts", options.seconds());
        List<Row> rows = new ArrayList<>();
        try (BankCluster bank = new BankCluster(options.replicas(), accounts, GroupStack.embedded())) {
            // Warm the JIT on every protocol's code path first, or the first case measures the compiler.
            for (Protocol p : options.protocols()) {
                trial(bank, p, options.readSets()[0]);
            }
            out.printf(Locale.ROOT, "%8s %-4s %12s %8s %8s %10s %10s %12s%n", "R", "prot", "commits/s", "aborts",
                    "BF f.p.", "p50 us", "p99 us", "bytes/tx");
            for (int readSet : options.readSets()) {
                for (int round = 0; round < options.rounds(); round++) {
                    for (int k = 0; k < options.protocols().size(); k++) {
                        Protocol p = options.protocols().get((k + round) % options.protocols().size());
                        Row row = trial(bank, p, readSet);
                        rows.add(row);
                        out.printf(Locale.ROOT, "%8d %-4s %12.0f %7.1f%% %7.2f%% %10.0f %10.0f %12.0f%n", readSet, p,
                                row.committedPerSecond(), 100 * row.abortRate(), 100 * row.falsePositiveRate(),
                                row.p50Micros(), row.p99Micros(), row.bytesPerTransaction());
                    }
                }
            }
            for (int i = 0; i < bank.replicas.size(); i++) {
                long total = bank.total(i);
                if (total != BankCluster.INITIAL * accounts) {
                    throw new IllegalStateException("replica " + i + " broke the bank invariant: " + total);
                }
            }
            out.println("(bank invariant checked at every replica)");
        }
        // The same stack's raw atomic broadcast, same members, for comparison: messages of the size of an R=1
        // NVC commit, one in flight per member (like one thread per replica) and with a full window.
        out.println();
        out.println("The same group stack's atomic broadcast alone, 64-byte messages:");
        new io.polycert.bench.gcs.BroadcastBenchmark(new io.polycert.bench.gcs.BroadcastBenchmark.Options(
                options.replicas(), new int[] {64}, options.warmupSeconds(), options.seconds(), 1), out,
                java.util.EnumSet.of(io.polycert.bench.gcs.BroadcastBenchmark.Kind.POLYCERT)).run();
        return rows;
    }

    private Row trial(BankCluster bank, Protocol protocol, int readSet) throws InterruptedException {
        bank.use(() -> ProtocolOracle.always(protocol));
        int threads = options.replicas() * options.threadsPerReplica();
        LongAdder commits = new LongAdder();
        ConcurrentHistogram latency = new ConcurrentHistogram(3);
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int replica = t % options.replicas();
            int index = t;
            Thread w = new Thread(() -> {
                int n = bank.accounts;
                int lo = options.disjoint() ? index * (n / threads) : 0;
                int span = options.disjoint() ? n / threads : n;
                SplittableRandom random = new SplittableRandom(index * 104_729L + System.nanoTime());
                while (!stop.get()) {
                    long t0 = System.nanoTime();
                    try {
                        bank.transfer(replica, readSet, lo, span, random);
                        if (measuring.get()) {
                            commits.increment();
                            latency.recordValue(System.nanoTime() - t0);
                        }
                    } catch (TransactionAbortedException e) {
                        // counted from the replicas' statistics, like every other attempt
                    }
                }
            }, "bank-" + t);
            workers.add(w);
            w.start();
        }
        Thread.sleep((long) (options.warmupSeconds() * 1000));
        long attemptsBefore = totalAttempts(bank, protocol);
        long bytesBefore = totalBytes(bank, protocol);
        long fpBefore = totalFalsePositives(bank, protocol);
        measuring.set(true);
        long start = System.nanoTime();
        Thread.sleep((long) (options.seconds() * 1000));
        measuring.set(false);
        double elapsed = (System.nanoTime() - start) / 1e9;
        long attempts = totalAttempts(bank, protocol) - attemptsBefore;
        long bytes = totalBytes(bank, protocol) - bytesBefore;
        long fps = totalFalsePositives(bank, protocol) - fpBefore;
        stop.set(true);
        for (Thread w : workers) {
            w.join(30_000);
        }
        double committed = commits.sum();
        return new Row(readSet, protocol, committed / elapsed, attempts == 0 ? 0 : 1 - Math.min(1, committed / attempts),
                attempts == 0 ? 0 : (double) fps / attempts, latency.getValueAtPercentile(50) / 1000.0,
                latency.getValueAtPercentile(99) / 1000.0, attempts == 0 ? 0 : (double) bytes / attempts);
    }

    private static long totalAttempts(BankCluster bank, Protocol p) {
        long n = 0;
        for (Replica r : bank.replicas) {
            CertificationStatistics.PerProtocol s = r.statistics().of(p);
            n += s.committed() + s.conflicts() + s.falsePositives() + s.otherAborts();
        }
        return n;
    }

    private static long totalBytes(BankCluster bank, Protocol p) {
        long n = 0;
        for (Replica r : bank.replicas) {
            n += r.statistics().of(p).bytesBroadcast();
        }
        return n;
    }

    private static long totalFalsePositives(BankCluster bank, Protocol p) {
        long n = 0;
        for (Replica r : bank.replicas) {
            n += r.statistics().of(p).falsePositives();
        }
        return n;
    }
}
