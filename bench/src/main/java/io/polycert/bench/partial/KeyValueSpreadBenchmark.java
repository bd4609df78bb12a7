package io.polycert.bench.partial;

import io.polycert.certification.partial.CommitProtocol;
import io.polycert.certification.partial.ConsistencyLevel;
import io.polycert.kvstore.PartitionedStore;
import io.polycert.kvstore.TxMap;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The key-value workload of seed 002 on a partially replicated store: increment and read commands on integer keys
 * drawn from a Gaussian around the middle of the key space, whose standard deviation (the spread) sets the
 * contention: a small spread piles the commands onto a few keys. Increments are read-modify-write transactions
 * (serializable by default, so none is lost); reads are single-key read-only transactions. Throughput against
 * spread for each commit protocol, and for the total-order ones with parallel apply off and on (the seed's other
 * axis: owners apply transactions on disjoint keys in parallel), side by side in one run.
 */
public final class KeyValueSpreadBenchmark {

    /** Settings of a run. */
    public record Options(int members, int threadsPerMember, int keys, double[] spreads, double writeRatio,
            ConsistencyLevel level, List<RadargunBenchmark.Contender> contenders, int[] applyThreads,
            double warmupSeconds, double seconds) {
        /** 100% increments (the seed's spread experiment), parallel apply off (0) and on with 2 threads. */
        public static Options defaults() {
            return new Options(4, 4, 10_000, new double[] {1, 10, 100, 1_000, 10_000}, 1.0,
                    ConsistencyLevel.SERIALIZABLE, List.of(RadargunBenchmark.Contender.values()), new int[] {0, 2}, 1,
                    4);
        }
    }

    /** One contender, with {@code applyThreads} apply threads per member (0: on the delivery thread), at one spread. */
    public record Row(double spread, RadargunBenchmark.Contender contender, int applyThreads,
            double commandsPerSecond, double abortRate) {
    }

    private final Options options;
    private final PrintStream out;

    public KeyValueSpreadBenchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public List<Row> run() throws Exception {
        out.printf(Locale.ROOT, "Key-value spread (seed 002): %d in-JVM members x %d threads, %d keys, %.0f%%"
                + " increments, %s, degree 2, %.1f s warm-up + %.1f s per trial%n", options.members(),
                options.threadsPerMember(), options.keys(), options.writeRatio() * 100, options.level(),
                options.warmupSeconds(), options.seconds());
        out.printf(Locale.ROOT, "%8s %-6s %6s %12s %8s%n", "spread", "commit", "apply", "commands/s", "aborts");
        List<Row> rows = new ArrayList<>();
        for (double spread : options.spreads()) {
            for (RadargunBenchmark.Contender c : options.contenders()) {
                for (int applyThreads : options.applyThreads()) {
                    if (applyThreads > 0 && c.protocol == CommitProtocol.TWO_PHASE_COMMIT) {
                        continue; // two-phase commit applies on its commit message: no parallel apply
                    }
                    Row r = trial(spread, c, applyThreads);
                    rows.add(r);
                    out.printf(Locale.ROOT, "%8.0f %-6s %6s %12.0f %7.1f%%%n", r.spread(), c.label(),
                            applyThreads == 0 ? "off" : applyThreads + " thr", r.commandsPerSecond(),
                            r.abortRate() * 100);
                }
            }
        }
        return rows;
    }

    private Row trial(double spread, RadargunBenchmark.Contender contender, int applyThreads) throws Exception {
        List<PartitionedStore> members = new ArrayList<>();
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            members.addAll(RadargunBenchmark.startCluster("kv-spread", options.members(), contender, pool,
                    b -> b.consistency(options.level()).replicationDegree(2).applyThreads(applyThreads)));
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder commands = new LongAdder();
            List<Future<?>> workers = new ArrayList<>();
            int seed = 0;
            for (PartitionedStore m : members) {
                for (int t = 0; t < options.threadsPerMember(); t++) {
                    SplittableRandom random = new SplittableRandom(seed++);
                    workers.add(pool.submit(() -> work(m, spread, random, measuring, stop, commands)));
                }
            }
            Thread.sleep((long) (options.warmupSeconds() * 1000));
            long committedBefore = members.stream().mapToLong(m -> m.statistics().committed()).sum();
            long abortsBefore = members.stream().mapToLong(m -> m.statistics().aborts()).sum();
            measuring.set(true);
            long start = System.nanoTime();
            Thread.sleep((long) (options.seconds() * 1000));
            double elapsed = (System.nanoTime() - start) / 1e9;
            measuring.set(false);
            long done = commands.sum();
            long committed = members.stream().mapToLong(m -> m.statistics().committed()).sum() - committedBefore;
            long aborts = members.stream().mapToLong(m -> m.statistics().aborts()).sum() - abortsBefore;
            stop.set(true);
            for (Future<?> f : workers) {
                f.get(120, TimeUnit.SECONDS);
            }
            return new Row(spread, contender, applyThreads, done / elapsed,
                    committed + aborts == 0 ? 0 : (double) aborts / (committed + aborts));
        } finally {
            pool.shutdownNow();
            for (PartitionedStore m : members) {
                m.close();
            }
        }
    }

    private Void work(PartitionedStore store, double spread, SplittableRandom random, AtomicBoolean measuring,
            AtomicBoolean stop, LongAdder commands) {
        TxMap<Integer, Long> map = store.map("kv");
        int keys = options.keys();
        while (!stop.get()) {
            int key = Math.floorMod((int) Math.round(keys / 2.0 + gaussian(random) * spread), keys);
            try {
                if (random.nextDouble() < options.writeRatio()) {
                    store.atomic(() -> {
                        Long v = map.get(key);
                        map.put(key, v == null ? 1 : v + 1);
                    });
                } else {
                    store.readOnly(() -> map.get(key));
                }
                if (measuring.get()) {
                    commands.increment();
                }
            } catch (RuntimeException e) {
                if (stop.get()) {
                    return null;
                }
            }
        }
        return null;
    }

    private static double gaussian(SplittableRandom random) {
        // Box-Muller: SplittableRandom has no nextGaussian on JDK 17.
        double u = 1 - random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    /** Writes {@code rows} as {@code kv-spread.csv} and {@code kv-spread.json} in {@code directory}. */
    public static void writeReport(List<Row> rows, java.nio.file.Path directory) throws java.io.IOException {
        List<List<Object>> table = new java.util.ArrayList<>();
        for (Row r : rows) {
            table.add(List.of(r.spread(), r.contender().name(), r.applyThreads(), r.commandsPerSecond(),
                    r.abortRate()));
        }
        io.polycert.bench.report.ReportWriter.writeTable(directory, "kv-spread", List.of("spread", "contender",
                "apply_threads", "commands_per_s", "abort_rate"), table);
    }
}
