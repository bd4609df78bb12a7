package io.polycert.oracle;

import io.polycert.core.group.GroupStatistics;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The monitoring layer (PolyCert's Table 1): samples the JVM and the group every {@code period} (default 100 ms) on
 * one daemon thread, and publishes the latest feature vector for the oracle to read without locking. A query
 * costs a volatile read and an array copy; the JMX calls happen on the sampling thread only.
 *
 * <p>Features, in {@link #featureNames()} order: free heap (MB), time since the last GC (ms), that time as a
 * share of the interval between the last two GCs, own broadcasts not yet delivered, the replay lag (µs); then
 * over windows of 0.1, 1 and 10 s: bytes delivered and sent per second, ordered deliveries and own broadcasts
 * per second, process CPU and delivery-thread CPU (share of one core). The transport's outgoing queue (the
 * paper's TCPqueue) is {@code undelivMsgs} here: our send window is the only queue a message waits in.
 */
public final class MetricsMonitor implements AutoCloseable {
    private static final double[] WINDOWS_SECONDS = {0.1, 1, 10};
    private static final String[] GAUGES = {"freeMemMB", "tLGC_ms", "pLGC", "undelivMsgs", "replayLag_us"};
    private static final String[] RATES = {"bytesUp", "bytesDown", "tobDeliv", "tobBcast", "totCPU", "esCPU"};
    private static final List<String> NAMES;

    static {
        List<String> names = new ArrayList<>(List.of(GAUGES));
        for (String rate : RATES) {
            for (double w : WINDOWS_SECONDS) {
                names.add(rate + "_" + (w < 1 ? Math.round(w * 1000) + "ms" : Math.round(w) + "s"));
            }
        }
        NAMES = Collections.unmodifiableList(names);
    }

    private final OracleContext context;
    private final long periodNanos;
    private final ScheduledExecutorService sampler;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final com.sun.management.OperatingSystemMXBean os = operatingSystem();
    /** Ring of cumulative counters, one row per sample: time, then the counters of {@link #RATES}. */
    private final long[][] ring;
    private int next;
    private long samples;
    private long lastGcCount = -1;
    private long lastGcAt;
    private long gcInterval;
    private volatile double[] latest;

    private MetricsMonitor(OracleContext context, long periodNanos, boolean start) {
        this.context = Objects.requireNonNull(context, "context");
        this.periodNanos = periodNanos;
        int rows = (int) Math.ceil(WINDOWS_SECONDS[WINDOWS_SECONDS.length - 1] * 1e9 / periodNanos) + 2;
        this.ring = new long[rows][1 + RATES.length];
        this.latest = new double[NAMES.size()];
        if (start) {
            this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "polycert-metrics");
                t.setDaemon(true);
                return t;
            });
            sampler.scheduleAtFixedRate(this::sampleSafely, 0, periodNanos, TimeUnit.NANOSECONDS);
        } else {
            this.sampler = null;
        }
    }

    /** A monitor sampling every {@code periodMillis} on its own daemon thread until closed. */
    public static MetricsMonitor start(OracleContext context, long periodMillis) {
        if (periodMillis < 1) {
            throw new IllegalArgumentException("sampling period must be at least 1 ms, got " + periodMillis);
        }
        return new MetricsMonitor(context, TimeUnit.MILLISECONDS.toNanos(periodMillis), true);
    }

    /** A monitor that samples only when {@link #sample()} is called (tests). */
    static MetricsMonitor manual(OracleContext context, long periodMillis) {
        return new MetricsMonitor(context, TimeUnit.MILLISECONDS.toNanos(periodMillis), false);
    }

    public static List<String> featureNames() {
        return NAMES;
    }

    /** The latest features, in {@link #featureNames()} order (a copy). */
    public double[] features() {
        return latest.clone();
    }

    /** Copies the latest features into {@code into}, at the given positions (the model's order); no allocation. */
    void features(int[] positions, double[] into) {
        double[] f = latest;
        for (int i = 0; i < positions.length; i++) {
            if (positions[i] >= 0) {
                into[i] = f[positions[i]];
            }
        }
    }

    private void sampleSafely() {
        try {
            sample();
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(MetricsMonitor.class).warn("metrics sampling failed", e);
        }
    }

    void sample() {
        sample(System.nanoTime());
    }

    synchronized void sample(long now) {
        GroupStatistics g = context.group();
        long[] row = ring[next];
        row[0] = now;
        row[1] = g.bytesDelivered();
        row[2] = g.bytesSent();
        row[3] = g.orderedDeliveries();
        row[4] = g.selfDeliveries() + g.undeliveredBroadcasts();
        row[5] = os == null ? 0 : Math.max(0, os.getProcessCpuTime());
        long thread = context.deliveryThreadId();
        row[6] = thread < 0 || !threads.isThreadCpuTimeSupported() ? 0 : Math.max(0, threads.getThreadCpuTime(thread));
        samples++;
        double[] f = new double[NAMES.size()];
        Runtime rt = Runtime.getRuntime();
        f[0] = (rt.freeMemory() + rt.maxMemory() - rt.totalMemory()) / 1048576.0;
        gc(now, f);
        f[3] = g.undeliveredBroadcasts();
        f[4] = context.replayLagNanos() / 1000.0;
        int k = GAUGES.length;
        for (int r = 0; r < RATES.length; r++) {
            double scale = r >= 4 ? 1e-9 : 1; // CPU nanoseconds per second: a share of one core
            for (double w : WINDOWS_SECONDS) {
                f[k++] = rate(r + 1, w) * scale;
            }
        }
        next = (next + 1) % ring.length;
        latest = f;
    }

    /** Per second over the window ending at the newest sample (the oldest sample available if fewer). */
    private double rate(int column, double windowSeconds) {
        long[] newest = ring[next];
        int back = (int) Math.min(samples - 1, Math.round(windowSeconds * 1e9 / periodNanos));
        if (back <= 0) {
            return 0;
        }
        long[] older = ring[Math.floorMod(next - back, ring.length)];
        double seconds = (newest[0] - older[0]) / 1e9;
        return seconds <= 0 ? 0 : (newest[column] - older[column]) / seconds;
    }

    private void gc(long now, double[] f) {
        long count = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
        }
        if (lastGcCount < 0) {
            lastGcCount = count;
            lastGcAt = now;
        } else if (count != lastGcCount) {
            gcInterval = now - lastGcAt;
            lastGcCount = count;
            lastGcAt = now;
        }
        double since = (now - lastGcAt) / 1e6;
        f[1] = since;
        f[2] = gcInterval == 0 ? 0 : Math.min(10, since / (gcInterval / 1e6));
    }

    private static com.sun.management.OperatingSystemMXBean operatingSystem() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os : null;
    }

    @Override
    public void close() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
    }
}
