package io.polycert.bench.workload;

import io.polycert.certification.CertificationStatistics;
import io.polycert.core.TransactionAbortedException;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.Protocol;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The client threads of one replica running a {@link Workload}, and what they measured. Runners start one per
 * replica (in one JVM, or one per member process), open a measurement window, and merge the replicas'
 * {@link Partial}s into one result.
 */
public final class ReplicaLoad implements AutoCloseable {
    private final Replica replica;
    private final Workload workload;
    private final int threads;
    private final long seed;
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean measuring = new AtomicBoolean();
    private final LongAdder committed = new LongAdder();
    private final LongAdder gaveUp = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile ConcurrentHistogram latency = new ConcurrentHistogram(3);
    /** Per operation kind (what {@link Workload.Client#next()} names): {count, nanoseconds} while measuring. */
    private volatile java.util.concurrent.ConcurrentHashMap<String, LongAdder[]> kinds =
            new java.util.concurrent.ConcurrentHashMap<>();
    private Window window;

    private final int member;
    private final int members;

    /** Client threads of a replica that is the only one running clients. */
    public ReplicaLoad(Replica replica, Workload workload, int threads, long seed) {
        this(replica, 0, 1, workload, threads, seed);
    }

    /**
     * Client threads of member {@code member} of {@code members}, each running {@code threads} (workloads that
     * partition their data between clients need to know).
     */
    public ReplicaLoad(Replica replica, int member, int members, Workload workload, int threads, long seed) {
        if (member < 0 || member >= members) {
            throw new IllegalArgumentException("member " + member + " is not one of " + members);
        }
        this.member = member;
        this.members = members;
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        this.replica = replica;
        this.workload = workload;
        this.threads = threads;
        this.seed = seed;
    }

    /** Starts the client threads; what they do is not measured until {@link #beginMeasuring()}. */
    public synchronized void start() {
        if (!workers.isEmpty()) {
            throw new IllegalStateException("already started");
        }
        for (int t = 0; t < threads; t++) {
            Workload.Client client = workload.client(replica, new Workload.Slot(member, members, t, threads,
                    seed * 1_000_003L + t));
            Thread w = new Thread(() -> loop(client), replica.self() + "-client-" + t);
            w.setDaemon(true);
            workers.add(w);
            w.start();
        }
    }

    private void loop(Workload.Client client) {
        while (!stop.get()) {
            long t0 = System.nanoTime();
            try {
                String kind = client.next();
                if (measuring.get()) {
                    long nanos = Math.max(1, System.nanoTime() - t0);
                    committed.increment();
                    latency.recordValue(nanos);
                    chargeKind(kind == null ? "unnamed" : kind, nanos, true);
                }
            } catch (TransactionAbortedException e) {
                gaveUp.increment(); // the replica's statistics count every aborted attempt by cause
                if (measuring.get()) {
                    // its time is its kind's cost too: a kind's mean is its time per operation completed
                    String kind = client.kind();
                    chargeKind(kind == null ? "gave-up" : kind, Math.max(1, System.nanoTime() - t0), false);
                }
            } catch (RuntimeException | Error e) {
                if (stop.get() || replica.stm().isClosed()) {
                    return;
                }
                failure.compareAndSet(null, e);
                return;
            }
        }
    }

    private void chargeKind(String name, long nanos, boolean completed) {
        java.util.concurrent.ConcurrentHashMap<String, LongAdder[]> k = kinds;
        LongAdder[] c = k.get(name);
        if (c == null) {
            c = k.computeIfAbsent(name, x -> new LongAdder[] {new LongAdder(), new LongAdder()});
        }
        if (completed) {
            c[0].increment();
        }
        c[1].add(nanos);
    }

    /** Counters so far: for progress lines. */
    public Counters current() {
        return Counters.of(committed.sum(), replica.statistics());
    }

    /** Opens the measurement window. */
    public synchronized void beginMeasuring() {
        checkFailure();
        latency = new ConcurrentHistogram(3);
        kinds = new java.util.concurrent.ConcurrentHashMap<>();
        committed.reset();
        window = new Window(System.nanoTime(), Counters.of(0, replica.statistics()), gcMillis());
        measuring.set(true);
    }

    /**
     * Records one timeline sample: call once a second while measuring (the runner's clock keeps the replicas'
     * seconds aligned).
     */
    public synchronized void sample() {
        if (window != null) {
            window.samples.add(Counters.of(committed.sum(), replica.statistics()));
        }
    }

    /** Closes the window and returns what this replica measured in it. */
    public synchronized Partial endMeasuring() {
        measuring.set(false);
        Window w = window;
        if (w == null) {
            throw new IllegalStateException("beginMeasuring was not called");
        }
        window = null;
        double seconds = (System.nanoTime() - w.startNanos) / 1e9;
        Counters end = Counters.of(committed.sum(), replica.statistics());
        Counters d = end.minus(w.start);
        List<long[]> timeline = new ArrayList<>();
        Counters previous = w.start;
        for (Counters c : w.samples) {
            Counters s = c.minus(previous);
            timeline.add(new long[] {s.readOnly(), s.committed[0], s.committed[1], s.committed[2]});
            previous = c;
        }
        checkFailure();
        long clientNanos = Math.round(threads * seconds * 1e9);
        // A commit is counted whole when it ends, so one begun before the window adds time the window did not
        // have (and one still running at its end adds none): clip to the clients' time, or a short window with
        // slow commits reads above 100%.
        return new Partial(seconds, d.clientCommits, d.readOnly(), d.conflicts, d.falsePositives, d.other,
                latency.copy(), d.bytes, d.attempts(), gcMillis() - w.gcMillis, Math.min(d.commitNanos, clientNanos),
                clientNanos, timeline, kindsSoFar());
    }

    private java.util.SortedMap<String, long[]> kindsSoFar() {
        java.util.SortedMap<String, long[]> m = new java.util.TreeMap<>();
        kinds.forEach((name, c) -> m.put(name, new long[] {c[0].sum(), c[1].sum()}));
        return m;
    }

    private void checkFailure() {
        Throwable f = failure.get();
        if (f != null) {
            throw new IllegalStateException("a " + workload.name() + " client at " + replica.self() + " failed: "
                    + f, f);
        }
    }

    /** Stops the client threads and waits for them. */
    @Override
    public synchronized void close() {
        stop.set(true);
        for (Thread w : workers) {
            try {
                w.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Garbage-collection time of this JVM so far, milliseconds. */
    public static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }

    private static final class Window {
        final long startNanos;
        final Counters start;
        final long gcMillis;
        final List<Counters> samples = new ArrayList<>();

        Window(long startNanos, Counters start, long gcMillis) {
            this.startNanos = startNanos;
            this.start = start;
            this.gcMillis = gcMillis;
        }
    }

    /** Cumulative counters of one replica. */
    public static final class Counters {
        final long clientCommits;
        /** Committed by NVC, BFC, VC (in {@link Protocol} order). */
        final long[] committed;
        final long conflicts;
        final long falsePositives;
        final long other;
        final long bytes;
        /** Time the client threads spent in commits that committed, from the commit call to the outcome. */
        final long commitNanos;

        private Counters(long clientCommits, long[] committed, long conflicts, long falsePositives, long other,
                long bytes, long commitNanos) {
            this.clientCommits = clientCommits;
            this.committed = committed;
            this.conflicts = conflicts;
            this.falsePositives = falsePositives;
            this.other = other;
            this.bytes = bytes;
            this.commitNanos = commitNanos;
        }

        static Counters of(long clientCommits, CertificationStatistics stats) {
            long[] c = new long[Protocol.values().length];
            long conflicts = 0;
            long fps = 0;
            long other = 0;
            long bytes = 0;
            long commitNanos = 0;
            for (Protocol p : Protocol.values()) {
                CertificationStatistics.PerProtocol s = stats.of(p);
                c[p.ordinal()] = s.committed();
                conflicts += s.conflicts();
                fps += s.falsePositives();
                other += s.otherAborts();
                bytes += s.bytesBroadcast();
                commitNanos += s.committedLatencyNanos();
            }
            return new Counters(clientCommits, c, conflicts, fps, other, bytes, commitNanos);
        }

        Counters minus(Counters o) {
            long[] c = new long[committed.length];
            for (int i = 0; i < c.length; i++) {
                c[i] = committed[i] - o.committed[i];
            }
            return new Counters(clientCommits - o.clientCommits, c, conflicts - o.conflicts,
                    falsePositives - o.falsePositives, other - o.other, bytes - o.bytes, commitNanos - o.commitNanos);
        }

        long certified() {
            long n = 0;
            for (long c : committed) {
                n += c;
            }
            return n;
        }

        /** Client commits that no protocol certified: read-only (or write-free) transactions. */
        long readOnly() {
            return Math.max(0, clientCommits - certified());
        }

        long attempts() {
            return certified() + conflicts + falsePositives + other;
        }

        /** Client commits so far. */
        public long commits() {
            return clientCommits;
        }

        /** Commits so far by protocol. */
        public long committedBy(Protocol p) {
            return committed[p.ordinal()];
        }
    }

    /**
     * What one replica measured in one window; {@link #timeline} holds, per second, commits that were read-only,
     * NVC, BFC and VC. {@link #commitNanos} is the time its client threads spent in certified commits that
     * committed (commit call to outcome, each counted whole in the window it ended in, at most
     * {@link #clientNanos}), {@link #clientNanos} their time in the window (threads x seconds);
     * {@link #kinds}, per operation kind, how many completed and the time spent on the kind in nanoseconds (retries
     * included, and operations that finally aborted).
     */
    public record Partial(double seconds, long committed, long committedReadOnly, long abortsConflict,
            long abortsFalsePositive, long abortsOther, Histogram latencyNanos, long bytesBroadcast,
            long broadcastTransactions, long gcMillis, long commitNanos, long clientNanos, List<long[]> timeline,
            java.util.SortedMap<String, long[]> kinds) {

        public Partial {
            java.util.SortedMap<String, long[]> copy = new java.util.TreeMap<>();
            kinds.forEach((k, v) -> {
                if (!k.matches("[A-Za-z0-9_.-]+") || v.length != 2) {
                    throw new IllegalArgumentException("an operation kind is a name of letters, digits, '_', '.' or"
                            + " '-' with a count and a time, not '" + k + "'");
                }
                copy.put(k, v.clone());
            });
            kinds = java.util.Collections.unmodifiableSortedMap(copy);
        }

        /** This window followed by {@code later}: times and counts add up, timelines concatenate. */
        public Partial then(Partial later) {
            Histogram h = latencyNanos.copy();
            h.add(later.latencyNanos);
            List<long[]> t = new ArrayList<>(timeline);
            t.addAll(later.timeline);
            return new Partial(seconds + later.seconds, committed + later.committed,
                    committedReadOnly + later.committedReadOnly, abortsConflict + later.abortsConflict,
                    abortsFalsePositive + later.abortsFalsePositive, abortsOther + later.abortsOther, h,
                    bytesBroadcast + later.bytesBroadcast, broadcastTransactions + later.broadcastTransactions,
                    gcMillis + later.gcMillis, commitNanos + later.commitNanos, clientNanos + later.clientNanos, t,
                    mergeKinds(List.of(kinds, later.kinds)));
        }

        /** Per kind, the counts and times of {@code all} added up. */
        static java.util.SortedMap<String, long[]> mergeKinds(List<java.util.SortedMap<String, long[]>> all) {
            java.util.SortedMap<String, long[]> m = new java.util.TreeMap<>();
            for (java.util.SortedMap<String, long[]> one : all) {
                one.forEach((k, v) -> m.merge(k, v.clone(), (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]}));
            }
            return m;
        }

        /** One line of text (no spaces), for a member process to send to its controller. */
        public String encode() {
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(latencyNanos.getNeededByteBufferCapacity());
            int n = latencyNanos.encodeIntoCompressedByteBuffer(buffer);
            byte[] hist = java.util.Arrays.copyOf(buffer.array(), n);
            StringBuilder sb = new StringBuilder();
            sb.append(Double.toString(seconds)).append(';').append(committed).append(';').append(committedReadOnly)
                    .append(';').append(abortsConflict).append(';').append(abortsFalsePositive).append(';')
                    .append(abortsOther).append(';').append(bytesBroadcast).append(';').append(broadcastTransactions)
                    .append(';').append(gcMillis).append(';').append(commitNanos).append(';').append(clientNanos)
                    .append(';').append(java.util.Base64.getEncoder().encodeToString(hist)).append(';');
            for (int i = 0; i < timeline.size(); i++) {
                long[] t = timeline.get(i);
                sb.append(i == 0 ? "" : "/").append(t[0]).append(',').append(t[1]).append(',').append(t[2])
                        .append(',').append(t[3]);
            }
            sb.append(';');
            boolean first = true;
            for (java.util.Map.Entry<String, long[]> e : kinds.entrySet()) {
                sb.append(first ? "" : "/").append(e.getKey()).append(',').append(e.getValue()[0]).append(',')
                        .append(e.getValue()[1]);
                first = false;
            }
            return sb.toString();
        }

        /**
         * Reads what {@link #encode()} wrote.
         *
         * @throws IllegalArgumentException if {@code line} is not such a text
         */
        public static Partial decode(String line) {
            String[] f = line.split(";", -1);
            if (f.length != 14) {
                throw new IllegalArgumentException("a load result has 14 fields, this has " + f.length);
            }
            try {
                byte[] hist = java.util.Base64.getDecoder().decode(f[11]);
                Histogram h = Histogram.decodeFromCompressedByteBuffer(java.nio.ByteBuffer.wrap(hist), 0);
                List<long[]> timeline = new ArrayList<>();
                if (!f[12].isEmpty()) {
                    for (String second : f[12].split("/")) {
                        String[] c = second.split(",");
                        if (c.length != 4) {
                            throw new IllegalArgumentException("a timeline second has 4 counts: " + second);
                        }
                        timeline.add(new long[] {Long.parseLong(c[0]), Long.parseLong(c[1]), Long.parseLong(c[2]),
                                Long.parseLong(c[3])});
                    }
                }
                java.util.SortedMap<String, long[]> kinds = new java.util.TreeMap<>();
                if (!f[13].isEmpty()) {
                    for (String kind : f[13].split("/")) {
                        String[] c = kind.split(",");
                        if (c.length != 3) {
                            throw new IllegalArgumentException("an operation kind has a name, a count and a time: "
                                    + kind);
                        }
                        kinds.put(c[0], new long[] {Long.parseLong(c[1]), Long.parseLong(c[2])});
                    }
                }
                return new Partial(Double.parseDouble(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                        Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), h, Long.parseLong(f[6]),
                        Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]), Long.parseLong(f[10]),
                        timeline, kinds);
            } catch (java.util.zip.DataFormatException | RuntimeException e) {
                if (e instanceof IllegalArgumentException iae) {
                    throw iae;
                }
                throw new IllegalArgumentException("not a load result: " + e, e);
            }
        }
    }

    /**
     * Merges the replicas' partials of one window into one result.
     *
     * @param sameJvm true when the replicas share one JVM, whose garbage-collection time each of them reports
     */
    public static io.polycert.bench.report.RunResult combine(String benchmark, String contender,
            java.util.Map<String, String> parameters, List<Partial> partials, boolean sameJvm) {
        if (partials.isEmpty()) {
            throw new IllegalArgumentException("no partial results to combine");
        }
        Histogram latency = new Histogram(3);
        double seconds = 0;
        long committed = 0;
        long readOnly = 0;
        long conflicts = 0;
        long fps = 0;
        long other = 0;
        long bytes = 0;
        long broadcasts = 0;
        long gc = 0;
        long commitNanos = 0;
        long clientNanos = 0;
        int secondsCount = Integer.MAX_VALUE;
        for (Partial p : partials) {
            latency.add(p.latencyNanos());
            seconds = Math.max(seconds, p.seconds());
            committed += p.committed();
            readOnly += p.committedReadOnly();
            conflicts += p.abortsConflict();
            fps += p.abortsFalsePositive();
            other += p.abortsOther();
            bytes += p.bytesBroadcast();
            broadcasts += p.broadcastTransactions();
            gc = sameJvm ? Math.max(gc, p.gcMillis()) : gc + p.gcMillis();
            commitNanos += p.commitNanos();
            clientNanos += p.clientNanos();
            secondsCount = Math.min(secondsCount, p.timeline().size());
        }
        List<java.util.SortedMap<String, long[]>> perReplica = new ArrayList<>();
        for (Partial p : partials) {
            perReplica.add(p.kinds());
        }
        List<io.polycert.bench.report.RunResult.Kind> kinds = new ArrayList<>();
        Partial.mergeKinds(perReplica).forEach((name, c) -> kinds.add(
                new io.polycert.bench.report.RunResult.Kind(name, c[0], c[0] == 0 ? Double.NaN : c[1] / 1000.0 / c[0])));
        List<io.polycert.bench.report.RunResult.Second> timeline = new ArrayList<>();
        for (int i = 0; i < secondsCount; i++) {
            long[] sum = new long[4];
            for (Partial p : partials) {
                long[] t = p.timeline().get(i);
                for (int k = 0; k < 4; k++) {
                    sum[k] += t[k];
                }
            }
            timeline.add(new io.polycert.bench.report.RunResult.Second(i + 1, sum[0], sum[1], sum[2], sum[3]));
        }
        return new io.polycert.bench.report.RunResult(benchmark, contender, parameters, seconds, committed, readOnly,
                conflicts, fps, other, latency.getValueAtPercentile(50) / 1000.0,
                latency.getValueAtPercentile(90) / 1000.0, latency.getValueAtPercentile(99) / 1000.0, bytes,
                broadcasts, gc, timeline, clientNanos == 0 ? Double.NaN : (double) commitNanos / clientNanos, kinds);
    }
}
