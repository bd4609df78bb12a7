package io.polycert.bench.partial;

import io.polycert.certification.partial.CommitProtocol;
import io.polycert.certification.partial.ConsistencyLevel;
import io.polycert.certification.partial.PartitionedStatistics;
import io.polycert.core.AbortCause;
import io.polycert.core.TransactionAbortedException;
import io.polycert.bench.gcs.EmulatedLink;
import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.TomVariant;
import io.polycert.kvstore.PartitionedStore;
import io.polycert.kvstore.TxMap;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Radargun-style partial-replication benchmark (Ruivo's evaluation): transactions of 10 operations on keys drawn
 * uniformly, each operation a write with probability 10% and at least one write per transaction; few keys give
 * high contention, many keys low. TOM-3, TOM-2 and two-phase commit run one after the other on fresh in-JVM
 * clusters for each key count and replication degree, so the ratios come from one run on one machine.
 *
 * <p>Fairness: the JIT compiles for tens of seconds after the JVM starts (a profile showed its compiler threads
 * taking 12% to 26% of the CPU in the first trials), so a contender run first would pay for it. Each contender
 * first runs once unmeasured ({@code settleSeconds}); then the contenders run in {@code rounds} rounds, the order
 * rotating from round to round, and each figure is the contender's median round.
 */
public final class RadargunBenchmark {

    /** Who commits: the total-order multicast in one of its variants, or the 2PC baseline. */
    public enum Contender {
        TOM_3(CommitProtocol.TOTAL_ORDER, TomVariant.COORDINATED),
        TOM_2(CommitProtocol.TOTAL_ORDER, TomVariant.DECENTRALIZED),
        TWO_PC(CommitProtocol.TWO_PHASE_COMMIT, TomVariant.COORDINATED);

        final CommitProtocol protocol;
        final TomVariant variant;

        Contender(CommitProtocol protocol, TomVariant variant) {
            this.protocol = protocol;
            this.variant = variant;
        }

        String label() {
            return this == TWO_PC ? "2PC" : name().replace('_', '-');
        }
    }

    /** Settings of a run. */
    public record Options(int members, int threadsPerMember, int[] keyCounts, int[] degrees, ConsistencyLevel level,
            List<Contender> contenders, int operations, double writeRatio, double warmupSeconds, double seconds,
            int rounds, double settleSeconds, EmulatedNetwork network) {
        public Options {
            if (rounds < 1) {
                throw new IllegalArgumentException("rounds must be at least 1, was " + rounds);
            }
        }

        /** Members on the in-JVM stack as it is (no emulated network). */
        public Options(int members, int threadsPerMember, int[] keyCounts, int[] degrees, ConsistencyLevel level,
                List<Contender> contenders, int operations, double writeRatio, double warmupSeconds, double seconds,
                int rounds, double settleSeconds) {
            this(members, threadsPerMember, keyCounts, degrees, level, contenders, operations, writeRatio,
                    warmupSeconds, seconds, rounds, settleSeconds, EmulatedNetwork.NONE);
        }

        public static Options defaults() {
            return new Options(4, 8, new int[] {1_000, 100_000}, new int[] {2, 4},
                    ConsistencyLevel.REPEATABLE_READ_WRITE_SKEW_CHECK, List.of(Contender.values()), 10, 0.1, 2, 5, 3,
                    5);
        }
    }

    /** One contender on one configuration: its median round, and the commits per second of every round. */
    public record Row(int keys, int degree, Contender contender, double committedPerSecond, double abortRate,
            double meanCommitMicros, double p50Micros, double p99Micros, double messagesPerTransaction,
            double orderWaitMicros, long gaveUp, double[] roundsPerSecond) {
    }

    private final Options options;
    private final PrintStream out;

    public RadargunBenchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** What the emulated links of every trial carried, for the summary at the run's end. */
    private EmulatedLink.Totals totals;

    public List<Row> run() throws Exception {
        totals = new EmulatedLink.Totals(options.network());
        out.printf(Locale.ROOT, "Radargun-style partial replication: %d in-JVM members x %d threads, %d operations"
                + " per transaction, %.0f%% writes (at least one), %s, %.1f s warm-up + %.1f s per trial, %d"
                + " round(s) in rotating order after %.1f s of unmeasured load per contender; median round shown;"
                + " network %s%n", options.members(), options.threadsPerMember(), options.operations(),
                options.writeRatio() * 100, options.level(), options.warmupSeconds(), options.seconds(),
                options.rounds(), options.settleSeconds(), options.network());
        if (options.settleSeconds() > 0) {
            for (Contender c : options.contenders()) {
                trial(options.keyCounts()[0], options.degrees()[0], c, options.settleSeconds(), 0.1);
            }
        }
        out.printf(Locale.ROOT, "%8s %6s %-6s %12s %8s %12s %10s %10s %8s %8s %10s  %s%n", "keys", "degree",
                "commit", "commits/s", "aborts", "commit us", "tx p50 us", "tx p99 us", "msgs/tx", "wait us", "vs 2PC",
                "rounds");
        List<Row> rows = new ArrayList<>();
        List<Contender> contenders = options.contenders();
        for (int keys : options.keyCounts()) {
            for (int degree : options.degrees()) {
                List<List<Row>> trials = new ArrayList<>();
                contenders.forEach(c -> trials.add(new ArrayList<>()));
                for (int round = 0; round < options.rounds(); round++) {
                    for (int i = 0; i < contenders.size(); i++) {
                        int c = (i + round) % contenders.size();
                        trials.get(c).add(trial(keys, degree, contenders.get(c), options.warmupSeconds(),
                                options.seconds()));
                    }
                }
                List<Row> here = new ArrayList<>();
                trials.forEach(t -> here.add(median(t)));
                Row baseline = here.stream().filter(r -> r.contender() == Contender.TWO_PC).findFirst().orElse(null);
                for (Row r : here) {
                    String ratio = baseline == null || baseline.committedPerSecond() == 0 ? "-"
                            : String.format(Locale.ROOT, "%.2fx", r.committedPerSecond()
                                    / baseline.committedPerSecond());
                    out.printf(Locale.ROOT, "%8d %6d %-6s %12.0f %7.1f%% %12.0f %10.0f %10.0f %8.1f %8.0f %10s  %s%s%n",
                            r.keys(), r.degree(), r.contender().label(), r.committedPerSecond(), r.abortRate() * 100,
                            r.meanCommitMicros(), r.p50Micros(), r.p99Micros(), r.messagesPerTransaction(),
                            r.orderWaitMicros(), ratio,
                            rounds(r), r.gaveUp() > 0 ? "  (" + r.gaveUp() + " gave up)" : "");
                }
                rows.addAll(here);
            }
        }
        if (!options.network().isNone()) {
            out.println("emulated network, all trials: " + totals);
        }
        return rows;
    }

    /** The round with the median throughput (the upper one of an even count), carrying every round's figure. */
    private static Row median(List<Row> trials) {
        List<Row> sorted = new ArrayList<>(trials);
        sorted.sort(java.util.Comparator.comparingDouble(Row::committedPerSecond));
        Row m = sorted.get(sorted.size() / 2);
        double[] each = trials.stream().mapToDouble(Row::committedPerSecond).toArray();
        return new Row(m.keys(), m.degree(), m.contender(), m.committedPerSecond(), m.abortRate(),
                m.meanCommitMicros(), m.p50Micros(), m.p99Micros(), m.messagesPerTransaction(), m.orderWaitMicros(),
                trials.stream().mapToLong(Row::gaveUp).sum(), each);
    }

    private static String rounds(Row r) {
        StringBuilder sb = new StringBuilder();
        for (double v : r.roundsPerSecond()) {
            sb.append(sb.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.0f", v));
        }
        return sb.toString();
    }

    private Row trial(int keys, int degree, Contender contender, double warmupSeconds, double seconds)
            throws Exception {
        List<PartitionedStore> members = new ArrayList<>();
        List<EmulatedLink> links = new ArrayList<>();
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            EmulatedNetwork network = options.network();
            members.addAll(startCluster("radargun", options.members(), contender, pool,
                    b -> b.consistency(options.level()).replicationDegree(degree).stack(network.stackFor(
                            GroupStack.embedded()))));
            populate(members.get(0), keys);
            for (PartitionedStore m : members) {
                network.attach(m.group(), links);
            }
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentHistogram latency = new ConcurrentHistogram(3);
            long[] gaveUp = new long[1];
            List<Future<?>> workers = new ArrayList<>();
            int seed = 0;
            for (PartitionedStore m : members) {
                for (int t = 0; t < options.threadsPerMember(); t++) {
                    SplittableRandom random = new SplittableRandom(seed++);
                    workers.add(pool.submit(() -> work(m, keys, random, measuring, stop, latency, gaveUp)));
                }
            }
            Thread.sleep((long) (warmupSeconds * 1000));
            long committedBefore = sum(members, PartitionedStatistics::committed);
            long abortsBefore = sum(members, PartitionedStatistics::aborts);
            long roundsBefore = sum(members, PartitionedStatistics::commitRounds);
            double commitMicrosBefore = weightedCommitMicros(members);
            long messagesBefore = members.stream().mapToLong(m -> m.groupStatistics().messagesSent()).sum();
            long deliveriesBefore = members.stream().mapToLong(m -> m.groupStatistics().multicastDeliveries()).sum();
            long waitBefore = members.stream().mapToLong(m -> m.groupStatistics().multicastWaitNanos()).sum();
            measuring.set(true);
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            double elapsed = (System.nanoTime() - start) / 1e9;
            measuring.set(false);
            long committed = sum(members, PartitionedStatistics::committed) - committedBefore;
            long aborts = sum(members, PartitionedStatistics::aborts) - abortsBefore;
            long rounds = sum(members, PartitionedStatistics::commitRounds) - roundsBefore;
            long messages = members.stream().mapToLong(m -> m.groupStatistics().messagesSent()).sum()
                    - messagesBefore;
            double commitMicros = rounds == 0 ? 0 : (weightedCommitMicros(members) - commitMicrosBefore) / rounds;
            long deliveries = members.stream().mapToLong(m -> m.groupStatistics().multicastDeliveries()).sum()
                    - deliveriesBefore;
            long waitNanos = members.stream().mapToLong(m -> m.groupStatistics().multicastWaitNanos()).sum()
                    - waitBefore;
            stop.set(true);
            for (Future<?> f : workers) {
                f.get(120, TimeUnit.SECONDS);
            }
            Histogram h = latency.copy();
            return new Row(keys, degree, contender, committed / elapsed,
                    committed + aborts == 0 ? 0 : (double) aborts / (committed + aborts), commitMicros,
                    h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50) / 1000.0,
                    h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99) / 1000.0,
                    committed == 0 ? 0 : (double) messages / committed,
                    deliveries == 0 ? 0 : waitNanos / 1000.0 / deliveries, gaveUp[0],
                    new double[] {committed / elapsed});
        } finally {
            pool.shutdownNow();
            for (PartitionedStore m : members) {
                m.close();
            }
            links.forEach(totals::add);
        }
    }

    private Void work(PartitionedStore store, int keys, SplittableRandom random, AtomicBoolean measuring,
            AtomicBoolean stop, ConcurrentHistogram latency, long[] gaveUp) {
        TxMap<Integer, Long> map = store.map("radargun");
        int ops = options.operations();
        int[] key = new int[ops];
        boolean[] write = new boolean[ops];
        while (!stop.get()) {
            boolean anyWrite = false;
            for (int i = 0; i < ops; i++) {
                key[i] = random.nextInt(keys);
                write[i] = random.nextDouble() < options.writeRatio();
                anyWrite |= write[i];
            }
            if (!anyWrite) {
                write[random.nextInt(ops)] = true;
            }
            long value = random.nextLong();
            long begin = System.nanoTime();
            try {
                store.atomic(() -> {
                    for (int i = 0; i < ops; i++) {
                        if (write[i]) {
                            map.put(key[i], value);
                        } else {
                            map.get(key[i]);
                        }
                    }
                });
                if (measuring.get()) {
                    latency.recordValue(System.nanoTime() - begin);
                }
            } catch (TransactionAbortedException e) {
                if (e.abortCause() == AbortCause.REPLICA_LEFT || stop.get()) {
                    return null;
                }
                synchronized (gaveUp) {
                    gaveUp[0]++;
                }
            } catch (IllegalStateException e) {
                return null; // closed at the end of the trial
            }
        }
        return null;
    }

    private static void populate(PartitionedStore store, int keys) {
        TxMap<Integer, Long> map = store.map("radargun");
        for (int from = 0; from < keys; from += 1_000) {
            int first = from;
            store.atomic(() -> {
                for (int k = first; k < Math.min(keys, first + 1_000); k++) {
                    map.put(k, 0L);
                }
            });
        }
    }

    /**
     * Starts {@code n} members of a fresh in-JVM cluster for one contender, together (the group is founded once
     * all are there), and waits until they agree on a placement.
     */
    static List<PartitionedStore> startCluster(String prefix, int n, Contender contender, ExecutorService pool,
            java.util.function.Consumer<PartitionedStore.Builder> settings) throws Exception {
        String cluster = prefix + "-" + UUID.randomUUID();
        List<Future<PartitionedStore>> starting = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            PartitionedStore.Builder b = PartitionedStore.builder(cluster).memberName("m" + i)
                    .stack(GroupStack.embedded()).protocol(contender.protocol).tomVariant(contender.variant)
                    .minimumMembers(n);
            settings.accept(b);
            starting.add(pool.submit(b::start));
        }
        List<PartitionedStore> members = new ArrayList<>();
        try {
            for (Future<PartitionedStore> f : starting) {
                members.add(f.get(60, TimeUnit.SECONDS));
            }
            awaitPlacement(members);
            return members;
        } catch (Exception e) {
            members.forEach(PartitionedStore::close);
            throw e;
        }
    }

    private static void awaitPlacement(List<PartitionedStore> members) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!members.stream().allMatch(m -> m.isReady() && m.placementEpoch() == m.view().epoch()
                && m.view().size() == members.size())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the members did not agree on a placement within 60 s");
            }
            Thread.sleep(10);
        }
    }

    private static long sum(List<PartitionedStore> members,
            java.util.function.ToLongFunction<PartitionedStatistics> counter) {
        return members.stream().mapToLong(m -> counter.applyAsLong(m.statistics())).sum();
    }

    private static double weightedCommitMicros(List<PartitionedStore> members) {
        return members.stream().mapToDouble(m -> m.statistics().meanCommitMicros() * m.statistics().commitRounds())
                .sum();
    }

    /** Writes {@code rows} as {@code radargun.csv} and {@code radargun.json} in {@code directory}. */
    public static void writeReport(List<Row> rows, java.nio.file.Path directory) throws java.io.IOException {
        List<List<Object>> table = new java.util.ArrayList<>();
        for (Row r : rows) {
            table.add(List.of(r.keys(), r.degree(), r.contender().name(), r.committedPerSecond(), r.abortRate(),
                    r.meanCommitMicros(), r.p50Micros(), r.p99Micros(), r.messagesPerTransaction(),
                    r.orderWaitMicros(), r.gaveUp(), rounds(r)));
        }
        io.polycert.bench.report.ReportWriter.writeTable(directory, "radargun", List.of("keys", "degree",
                "contender", "committed_per_s", "abort_rate", "mean_commit_us", "p50_us", "p99_us",
                "messages_per_tx", "order_wait_us", "gave_up", "rounds_committed_per_s"), table);
    }
}
